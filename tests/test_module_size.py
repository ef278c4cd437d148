"""No module of judgeapp/ over 800 lines (issue 31): a module that long does several jobs
and is split along them (as judgeapp/ui/controller.py and judging_controller.py were).
The planted test proves the check can fail: an 801-line module is named, an 800-line one
is not."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "judgeapp"
LIMIT = 800


def line_count(path: Path) -> int:
    """Lines of a file, as `wc -l` counts them for a file ending in a newline."""
    return len(path.read_text(encoding="utf-8").splitlines())


def oversized(root: Path, limit: int = LIMIT) -> list[tuple[str, int]]:
    """(path under `root`, lines) of every Python module under `root` over `limit`."""
    found = [(p, line_count(p)) for p in sorted(root.rglob("*.py"))]
    return [(str(p.relative_to(root)), n) for p, n in found if n > limit]


def test_no_module_of_judgeapp_is_over_800_lines():
    offenders = oversized(PACKAGE)
    named = ", ".join(f"judgeapp/{path} ({n})" for path, n in offenders)
    assert not offenders, f"over {LIMIT} lines: {named}"


def test_a_planted_801_line_module_is_named(tmp_path):
    package = tmp_path / "pkg" / "sub"
    package.mkdir(parents=True)
    (package / "long.py").write_text("x = 1\n" * (LIMIT + 1), encoding="utf-8")
    (package / "fits.py").write_text("x = 1\n" * LIMIT, encoding="utf-8")
    (tmp_path / "pkg" / "notes.txt").write_text("x\n" * 5000, encoding="utf-8")
    assert line_count(package / "long.py") == 801
    assert oversized(tmp_path / "pkg") == [("sub/long.py", 801)]
    assert PACKAGE.is_dir() and len(list(PACKAGE.rglob("*.py"))) > 100  # the real tree is read
