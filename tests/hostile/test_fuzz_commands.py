"""Commands on hypothesis-generated hostile input, each run in a process of its own under
resource limits (tests/hostile/runner.py: 3 GiB of address space, 60 s): `evaluate` on
mutated qrels and runs, `import` of every kind of mutated file, `judge` on mutated standard
input, and every command's way of opening a project on a mutated project file.

Each must end with exit 0, or exit 1 or 2 and one `judgeapp: error:` line; never a
traceback, a signal or a hang. On failure the project is byte-identical; for `judge`,
every `recorded` line printed is what the store holds, and nothing else is.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgeapp.store.files import CHECK_DUE, SESSION_SUFFIX
from tests.hostile.cases import BASE, last_grades, recorded_lines, snapshot, stored_judgments
from tests.hostile.mutations import KINDS, damage, mutate, source
from tests.hostile.runner import ForkServer, Outcome

COMMANDS = settings(
    max_examples=15,
    deadline=None,  # each example is a process; the runner's own limit is the deadline
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
mutations = st.tuples(
    st.sampled_from(KINDS), st.floats(0, 1, exclude_max=True), st.integers(0, 1 << 16)
)


_serial = itertools.count()  # hypothesis seeds `random` alike for every example


def fresh(template: Path, folder: Path, name: str) -> Path:
    work = folder / f"{name}{next(_serial)}"
    work.mkdir()
    db = work / "p.db"
    db.write_bytes(template.read_bytes())
    return db


def assert_clean(outcome: Outcome) -> None:
    assert outcome.kind in ("ok", "error"), outcome.describe()


def assert_judge_kept_its_word(outcome: Outcome, db: Path, before: dict) -> None:
    printed = recorded_lines(outcome.stdout)
    if outcome.kind != "ok" and not printed:  # (before the store is read below)
        assert snapshot(db) == before, outcome.describe()
    assert last_grades(printed) == last_grades(stored_judgments(db, "fuzz")), outcome.describe()


@COMMANDS
@given(mutation=mutations, which=st.sampled_from(["qrels", "run"]), index=st.integers(0, 1))
def test_evaluate_on_mutated_files(
    server: ForkServer, case_dir: Path, mutation: tuple, which: str, index: int
) -> None:
    work = case_dir / f"e{next(_serial)}"
    work.mkdir()
    original = source(which, index)
    path = work / original.name
    path.write_bytes(mutate(original.read_bytes(), *mutation))
    qrels = path if which == "qrels" else BASE / "qrels.txt"
    run = path if which == "run" else BASE / "run.txt"
    assert_clean(server.run(["evaluate", "-c", "-m", "all_trec", str(qrels), str(run)], work))


@COMMANDS
@given(
    mutation=mutations,
    kind=st.sampled_from(["run", "qrels", "topics", "docs", "judgments"]),
    index=st.integers(0, 3),
)
def test_import_of_mutated_files_is_all_or_nothing(
    server: ForkServer, template: Path, case_dir: Path, mutation: tuple, kind: str, index: int
) -> None:
    db = fresh(template, case_dir, "i")
    original = source(kind, index)
    path = db.parent / original.name
    path.write_bytes(mutate(original.read_bytes(), *mutation))
    before = snapshot(db)
    argv = ["import", kind, str(db), str(path), "--replace"]
    if kind in ("topics", "docs", "judgments"):
        argv.remove("--replace")
    if kind == "judgments":
        argv += ["--assessor", "fuzz"]
    outcome = server.run(argv, db.parent)
    assert_clean(outcome)
    if outcome.kind != "ok":
        assert snapshot(db) == before, outcome.describe()


@COMMANDS
@given(mutation=mutations, unpooled=st.booleans())
def test_judge_records_what_it_prints_on_mutated_input(
    server: ForkServer, template: Path, case_dir: Path, mutation: tuple, unpooled: bool
) -> None:
    db = fresh(template, case_dir, "j")
    stdin = db.parent / "stdin.txt"
    stdin.write_bytes(mutate(source("judge", 0).read_bytes(), *mutation))
    before = snapshot(db)
    argv = ["judge", str(db), "--assessor", "fuzz"] + (["--allow-unpooled"] if unpooled else [])
    outcome = server.run(argv, db.parent, stdin=stdin)
    assert_clean(outcome)
    assert_judge_kept_its_word(outcome, db, before)


@COMMANDS
@given(
    how=st.sampled_from(["truncate", "page", "flips", "header"]),
    at=st.floats(0, 1, exclude_max=True),
    value=st.integers(0, 1 << 16),
    command=st.sampled_from(["info", "judge", "export", "evaluate", "pool", "import"]),
)
def test_every_command_opens_a_damaged_project_or_refuses_it(
    server: ForkServer,
    template: Path,
    case_dir: Path,
    how: str,
    at: float,
    value: int,
    command: str,
) -> None:
    db = fresh(template, case_dir, "p")
    db.write_bytes(damage(db.read_bytes(), how, at, value))
    before = snapshot(db)
    argv = {
        "info": ["info", str(db), "--topics"],
        "judge": ["judge", str(db), "--assessor", "fuzz"],
        "export": ["export", "qrels", str(db)],
        "evaluate": ["evaluate", "--db", str(db)],
        "pool": ["pool", str(db), "--depth", "3", "--name", "fuzz-pool"],
        "import": ["import", "topics", str(db), str(BASE / "topics.sgml")],
    }[command]
    stdin = BASE / "judge.txt" if command == "judge" else None
    outcome = server.run(argv, db.parent, stdin=stdin)
    assert_clean(outcome)
    if command == "judge":
        assert_judge_kept_its_word(outcome, db, before)
    elif outcome.kind != "ok":
        assert snapshot(db) == before, outcome.describe()


@pytest.mark.parametrize("how", ["truncate", "page"])
def test_a_project_damaged_by_a_crash_is_refused_before_anything_is_written(
    server: ForkServer, template: Path, case_dir: Path, how: str
) -> None:
    """Not drawn at random: a file cut in half, and one with a page overwritten, left by a
    process that never closed it (its session mark says a check is due), fail SQLite's
    quick_check, and `judge` stops before its first judgment. Without a crash nothing
    reads the whole file before a write (issue 28): a file cut short is still refused (its
    header says how long it is), a page overwritten is found by `check`."""
    db = fresh(template, case_dir, how)
    db.write_bytes(damage(db.read_bytes(), how, 0.5, 13))
    Path(f"{db}{SESSION_SUFFIX}").write_bytes(CHECK_DUE)  # what a crash leaves
    before = snapshot(db)
    outcome = server.run(
        ["judge", str(db), "--assessor", "fuzz"], db.parent, stdin=BASE / "judge.txt"
    )
    assert outcome.kind == "error", outcome.describe()
    assert f"{db}: the project file is damaged" in outcome.error_line
    assert snapshot(db) == before


def test_check_finds_a_page_overwritten_that_no_write_looked_for(
    server: ForkServer, template: Path, case_dir: Path
) -> None:
    db = fresh(template, case_dir, "check")
    db.write_bytes(damage(db.read_bytes(), "page", 0.5, 13))
    before = snapshot(db)
    outcome = server.run(["check", str(db)], db.parent)
    assert outcome.kind == "error", outcome.describe()
    assert f"{db}: the project file is damaged" in outcome.error_line
    assert snapshot(db) == before
    sound = fresh(template, case_dir, "sound")
    outcome = server.run(["check", str(sound), "--full"], sound.parent)
    assert outcome.kind == "ok" and "sound (integrity_check" in outcome.stdout, outcome.describe()
