"""The package layering the house style asks for, read from the imports themselves:
no import cycle between judgeapp's top-level packages, a Qt-free core, a store that does not
know about pooling or services, and a UI that talks to services (not to the store) and does
not reach up into the composition root."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "judgeapp"
CORE = ("store", "formats", "measures", "statistics", "pooling", "services", "records", "errors")
FORBIDDEN = {
    ("store", "pooling"),
    ("store", "services"),
    ("store", "measures"),
    ("ui", "store"),
    ("ui", "app"),
    ("ui", "demo"),
    ("ui", "screenshots"),
    ("ui", "commands"),
}


def _unit(path: Path) -> str:
    """The top-level package (or module) of judgeapp that a file belongs to."""
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def _imports(path: Path) -> list[tuple[str, int]]:
    """(imported module, line) for every import in a file, relative ones resolved, those
    inside functions included."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if package[-1] == "__init__":
        package = package[:-1]
    else:
        package = package[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append((module, node.lineno))
    return found


def _graph() -> dict[tuple[str, str], list[str]]:
    edges: dict[tuple[str, str], list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path.parent == PACKAGE and path.name == "__init__.py":
            continue
        src = _unit(path)
        for module, line in _imports(path):
            parts = module.split(".")
            if parts[0] != "judgeapp" or len(parts) < 2 or parts[1] == src:
                continue
            where = f"{path.relative_to(PACKAGE.parent)}:{line}"
            edges.setdefault((src, parts[1]), []).append(where)
    return edges


def test_no_forbidden_arrow_between_packages():
    edges = _graph()
    bad = {edge: edges[edge] for edge in FORBIDDEN if edge in edges}
    assert not bad, f"imports against the layering: {bad}"


def test_no_import_cycle_between_packages():
    edges = _graph()
    nodes = {n for edge in edges for n in edge}
    succ = {n: sorted(b for a, b in edges if a == n) for n in nodes}
    # Tarjan-free check: a cycle exists iff some node reaches itself
    for start in nodes:
        seen, stack = set(), list(succ[start])
        while stack:
            n = stack.pop()
            assert n != start, f"import cycle through {start}: {edges}"
            if n not in seen:
                seen.add(n)
                stack.extend(succ.get(n, ()))


def test_the_core_imports_no_qt_and_no_matplotlib_backend():
    for path in PACKAGE.rglob("*.py"):
        if _unit(path) not in CORE:
            continue
        for module, line in _imports(path):
            assert not module.startswith(("PySide6", "matplotlib.backends")), (
                f"{path}:{line} imports {module} into the Qt-free core"
            )
