"""The package layering the house style asks for, read from the imports themselves:
no import cycle between judgeapp's top-level packages, a Qt-free core, a store that does not
know about pooling or services, and a UI that talks to services (not to the store) and does
not reach up into the composition root."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "judgeapp"
# the Qt shell: the only units that may import Qt; every other unit of judgeapp is the
# Qt-free core (store, formats, measures, statistics, pooling, services, records, api, ...)
QT_SHELL = ("ui", "app", "screenshots")
FORBIDDEN = {
    # the store takes and returns the records of judgeapp.records: it does not know how
    # files are read (issue 31)
    ("store", "formats"),
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


@functools.cache
def _tree(path: Path, text: str | None) -> ast.Module:
    """The file parsed (or `text` as if it were that file), once per test session."""
    return ast.parse(path.read_text(encoding="utf-8") if text is None else text)


def _imports(path: Path, text: str | None = None) -> list[tuple[str, int]]:
    """(imported module, line) for every import in a file (or `text` as if it were that
    file), relative ones resolved, those inside functions included."""
    tree = _tree(path, text)
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
            if module == "judgeapp":
                # `from judgeapp import store`: each name may be a package of its own
                found += [(f"judgeapp.{a.name}", node.lineno) for a in node.names]
            else:
                found.append((module, node.lineno))
    return found


def _graph(extra: dict[Path, str] | None = None) -> dict[tuple[str, str], list[str]]:
    """Arrows between judgeapp's units; `extra`: files added (path -> text), for the
    mutation tests."""
    edges: dict[tuple[str, str], list[str]] = {}
    files = [(p, None) for p in PACKAGE.rglob("*.py")] + list((extra or {}).items())
    for path, text in files:
        if path.parent == PACKAGE and path.name == "__init__.py":
            continue
        src = _unit(path)
        for module, line in _imports(path, text):
            parts = module.split(".")
            if parts[0] != "judgeapp" or len(parts) < 2 or parts[1] == src:
                continue
            where = f"{path.relative_to(PACKAGE.parent)}:{line}"
            edges.setdefault((src, parts[1]), []).append(where)
    return edges


def _forbidden(edges: dict[tuple[str, str], list[str]]) -> dict[tuple[str, str], list[str]]:
    return {edge: edges[edge] for edge in FORBIDDEN if edge in edges}


def test_no_forbidden_arrow_between_packages():
    bad = _forbidden(_graph())
    assert not bad, f"imports against the layering: {bad}"


def _assert_each_caught(planted: Path, forms: list[str], arrow: tuple[str, str]) -> None:
    """Each import form, planted alone, is reported as `arrow` at its line."""
    where = planted.relative_to(PACKAGE.parent).as_posix()
    for form in forms:
        bad = _forbidden(_graph({planted: form}))
        assert arrow in bad, f"not caught: {form!r}"
        assert bad[arrow] == [f"{where}:" + ("2" if form.startswith("def") else "1")]


def test_every_import_form_is_caught_by_the_layering_check():
    """Mutation tests: each way of writing an import of the store, put into a module of the
    window, is caught (before, `from judgeapp import store` passed unseen)."""
    planted = PACKAGE / "ui" / "planted_for_the_test.py"
    forms = [
        "from judgeapp import store\n",
        "from judgeapp import errors, store as s\n",
        "import judgeapp.store\n",
        "from judgeapp.store import Store\n",
        "from judgeapp.store.base import x\n",
        "from .. import store\n",
        "from ..store import Store\n",
        "def later():\n    from judgeapp import store\n",
    ]
    _assert_each_caught(planted, forms, ("ui", "store"))
    assert not _forbidden(_graph({planted: "from judgeapp import services\n"}))


def test_every_import_form_of_the_readers_in_the_store_is_caught():
    """Mutation test: the store may not import the readers (judgeapp.formats) in any form,
    inside a function included; the shared records and byte keys it may."""
    planted = PACKAGE / "store" / "planted_for_the_test.py"
    forms = [
        "from judgeapp import formats\n",
        "from judgeapp import records, formats as f\n",
        "import judgeapp.formats.bulk\n",
        "from judgeapp.formats.bulk import RunNumbering\n",
        "from judgeapp.formats import read_run\n",
        "from ..formats.errors import FormatError\n",
        "from .. import formats\n",
        "def later():\n    from judgeapp.formats.checks import duplicate_error\n",
        "def later():\n    import judgeapp.formats\n",
    ]
    _assert_each_caught(planted, forms, ("store", "formats"))
    allowed = "from judgeapp.records import RunFile\nfrom judgeapp.bytekeys import Numbered\n"
    assert not _forbidden(_graph({planted: allowed}))


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
        if _unit(path) in QT_SHELL:
            continue
        for module, line in _imports(path):
            assert not module.startswith(("PySide6", "matplotlib.backends")), (
                f"{path}:{line} imports {module} into the Qt-free core"
            )


# -- modules: no circle -------------------------------------------------
def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path, text: str | None) -> list[str]:
    """Every module name an import in the file may name: `from a.b import c` names a.b and,
    should c be a module, a.b.c."""
    tree = _tree(path, text)
    found = [module for module, _line in _imports(path, text)]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found += [f"{node.module}.{a.name}" for a in node.names]
    return found


def _module_graph(extra: dict[Path, str] | None = None) -> dict[str, set[str]]:
    """Module -> the judgeapp modules it imports (every import form, those inside functions
    and under TYPE_CHECKING included; a package's own parent packages left out, which
    Python imports first anyway)."""
    files = {p: None for p in PACKAGE.rglob("*.py")} | dict(extra or {})
    modules = {_module_name(p): (p, text) for p, text in files.items()}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, (path, text) in modules.items():
        for imported in _imported(path, text):
            parts = imported.split(".")
            while parts and ".".join(parts) not in modules:
                parts.pop()
            target = ".".join(parts)
            if target and target != name and not name.startswith(target + "."):
                graph[name].add(target)
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The sets of modules that import each other (strongly connected, more than one)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            circle = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                circle.append(w)
                if w == v:
                    break
            if len(circle) > 1:
                found.append(sorted(circle))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle_between_modules():
    assert _circles(_module_graph()) == []


def test_the_module_circle_check_catches_a_planted_circle():
    a, b = PACKAGE / "formats" / "planted_a.py", PACKAGE / "formats" / "planted_b.py"
    planted = {
        a: "from judgeapp.formats import planted_b\n",
        b: "def f():\n    from judgeapp.formats.planted_a import x\n",
    }
    assert ["judgeapp.formats.planted_a", "judgeapp.formats.planted_b"] in _circles(
        _module_graph(planted)
    )


def _store_reached(files: dict[Path, str | None]) -> list[str]:
    """Where a module reaches a store object (`anything.store`)."""
    return [
        f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
        for path, text in files.items()
        for node in ast.walk(_tree(path, text))
        if isinstance(node, ast.Attribute) and node.attr == "store"
    ]


def test_the_window_never_reaches_the_store():
    """The Qt shell reads and writes the project through the services (the workbench and
    the window's ops), never through a Store it reaches by an attribute (issue 31)."""
    assert _store_reached({p: None for p in (PACKAGE / "ui").rglob("*.py")}) == []
    planted = PACKAGE / "ui" / "planted_for_the_test.py"
    assert _store_reached({planted: "def f(wb):\n    return wb.store.check()\n"}) == [
        "judgeapp/ui/planted_for_the_test.py:2"
    ]
