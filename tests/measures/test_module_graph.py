"""No import circle inside judgeapp.measures or judgeapp.statistics: no set of their modules
importing each other, counting imports inside functions and under TYPE_CHECKING. (The
measures once registered through one: kernels.py imported three family modules on its
last line, which imported its helpers back.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "judgeapp"


def _module_of(path: Path, base: Path) -> str:
    parts = list(path.relative_to(base).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _edges(root: Path) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports; root: judgeapp/<package>."""
    modules = {_module_of(p, root.parent.parent): p for p in root.rglob("*.py")}
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                # `from package import submodule` names the submodule
                subs = [f"{node.module}.{a.name}" for a in node.names]
                targets = [s for s in subs if s in modules] or [node.module]
            else:
                continue
            edges[module] |= {t for t in targets if t in modules and t != module}
    return edges


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state and (found := visit(start)):
            return found
    return None


@pytest.mark.parametrize("package", ["measures", "statistics"])
def test_no_import_circle_inside(package):
    cycle = _cycle(_edges(PACKAGE / package))
    assert cycle is None, " -> ".join(cycle or ())


def test_the_check_finds_a_circle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
