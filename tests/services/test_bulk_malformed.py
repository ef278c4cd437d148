"""The malformed-input corpus through the bulk readers and through the line-precise ones:
the same message, naming file, line and problem, and an import that fails leaves the
project exactly as it was, whichever reader read the files."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgeapp.formats import FormatError, bulk, read_qrels, read_run
from judgeapp.formats.bulk import read_qrels_columns, read_run_columns
from judgeapp.formats.detect import resolve_format
from judgeapp.formats.errors import Irregular
from judgeapp.formats.qrels_lines import read_trec_qrels_lines
from judgeapp.formats.run_lines import read_run_lines
from judgeapp.services.imports import import_qrels, import_runs
from judgeapp.store import Store
from tests.formats.malformed_cases import CASES, MALFORMED

COLUMN_CASES = [c for c in CASES if c[1] in ("run", "qrels")]
IDS = [c[0] for c in COLUMN_CASES]


def message(read, path: Path) -> str:
    with pytest.raises(FormatError) as caught:
        read(path)
    return str(caught.value)


def is_trec_qrels(path: Path) -> bool:
    try:
        return resolve_format(str(path), "qrels", None) == "trec"
    except FormatError:
        return False  # detection refuses the file before any reader sees it


def line_precise_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on the bulk readers decline every file (the line readers read them all)."""

    def decline(*_: object) -> None:
        raise Irregular

    monkeypatch.setattr(bulk, "_read_run", decline)
    monkeypatch.setattr(bulk, "_read_qrels", decline)


@pytest.mark.parametrize(("name", "kind", "expected"), COLUMN_CASES, ids=IDS)
def test_both_paths_give_the_same_message(
    monkeypatch: pytest.MonkeyPatch, name: str, kind: str, expected: str
) -> None:
    path = MALFORMED / name
    read = read_run if kind == "run" else read_qrels
    through_bulk = message(read, path)
    if kind == "run":
        # the bulk reader declines the file, so the line reader is the one that speaks
        with pytest.raises(Irregular):
            bulk._read_run(str(path), bulk.BLOCK_BYTES)
        assert message(read_run_columns, path) == message(read_run_lines, path) == through_bulk
    elif is_trec_qrels(path):
        with pytest.raises(Irregular):
            bulk._read_qrels(str(path), bulk.BLOCK_BYTES)
        assert message(read_qrels_columns, path) == message(read_trec_qrels_lines, path)
    line_precise_only(monkeypatch)
    through_lines = message(read, path)
    assert through_bulk == through_lines
    assert expected in through_lines
    assert through_lines.startswith(str(path))


@pytest.mark.parametrize(("name", "kind", "expected"), COLUMN_CASES, ids=IDS)
def test_a_failed_import_leaves_the_database_unchanged_through_both_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, kind: str, expected: str
) -> None:
    db = tmp_path / "p.db"
    good_qrels = tmp_path / "good.qrels"
    good_qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    good_run = tmp_path / "good.run"
    good_run.write_text("1 Q0 d1 1 2.0 good\n1 Q0 d3 2 1.0 good\n")
    with Store.open(db) as store:
        import_qrels(store, [good_qrels])
        import_runs(store, [good_run])
    before = db.read_bytes()
    importer = import_runs if kind == "run" else import_qrels
    # a good file first: it must not land either
    files = [good_run if kind == "run" else good_qrels, MALFORMED / name]
    messages = []
    for path_taken in ("bulk", "line-precise"):
        if path_taken == "line-precise":
            line_precise_only(monkeypatch)
        with Store.open(db) as store, pytest.raises(FormatError) as caught:
            importer(store, files, replace=True)
        messages.append(str(caught.value))
        assert db.read_bytes() == before
        with Store.open(db) as store:
            assert store.integrity_check() == "ok"
            assert [r.name for r in store.runs.all()] == ["good"]
            assert store.totals()["judgments"] == 2
    assert messages[0] == messages[1]
    assert expected in messages[0]


# ---- issue 13's hostile inputs: the limits hold on the bulk path too ------------------------

HOSTILE = Path(__file__).resolve().parents[1] / "data" / "hostile" / "files"
HOSTILE_FILES = sorted(
    p.name
    for p in HOSTILE.iterdir()
    if p.name.startswith(("run_", "qrels_")) and not p.name.endswith(".json")
)


def hostile_made(tmp_path: Path) -> dict[str, tuple[str, Path]]:
    """Hostile column files too large (or too odd) to commit, small enough for a test."""
    made: dict[str, tuple[str, Path]] = {}

    def put(name: str, kind: str, data: bytes) -> None:
        path = tmp_path / name
        path.write_bytes(data)
        made[name] = (kind, path)

    good = b"401 Q0 D1 1 2.5 r\n"
    # columns spread over 2 MiB of spaces: no column is long, the line is
    put("run_wide_line.txt", "run", good + b"401 Q0 D2" + b" " * (2 << 20) + b"2 1.5 r\n")
    put("qrels_wide_line.txt", "qrels", b"401 0 D1 1\n401 0" + b"\t" * (2 << 20) + b"D2 1\n")
    # no line end at all, NUL bytes (/dev/zero), after a good line
    put("run_zeros.txt", "run", good + b"\x00" * (3 << 20))
    # one line over the limit with no line end (a binary file without NULs)
    put("run_endless_line.txt", "run", good + b"x" * (3 << 20))
    # a token too long for the bulk reader (but the line is within the line reader's limit)
    put("run_long_docno.txt", "run", good + b"401 Q0 " + b"D" * 600_000 + b" 2 1.5 r\n")
    # a qid that is a NUL in the middle of a line
    put("qrels_nul_qid.txt", "qrels", b"401 0 D1 1\n4\x0002 0 D2 1\n")
    return made


@pytest.mark.parametrize("name", HOSTILE_FILES)
def test_hostile_column_files_read_the_same_through_both_paths(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    path = HOSTILE / name
    read = read_run if name.startswith("run_") else read_qrels
    outcome = _outcome(read, path)
    line_precise_only(monkeypatch)
    assert outcome == _outcome(read, path)


def test_made_hostile_column_files_read_the_same_through_both_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = hostile_made(tmp_path)
    through_bulk = {
        name: _outcome(read_run if kind == "run" else read_qrels, path)
        for name, (kind, path) in made.items()
    }
    for kind, path in made.values():
        if kind == "run":
            with pytest.raises(Irregular):
                bulk._read_run(str(path), bulk.BLOCK_BYTES)
        else:
            with pytest.raises(Irregular):
                bulk._read_qrels(str(path), bulk.BLOCK_BYTES)
    line_precise_only(monkeypatch)
    through_lines = {
        name: _outcome(read_run if kind == "run" else read_qrels, path)
        for name, (kind, path) in made.items()
    }
    assert through_bulk == through_lines
    assert "line longer than 1 MiB" in through_lines["run_wide_line.txt"]
    assert "line longer than 1 MiB" in through_lines["qrels_wide_line.txt"]
    assert "NUL byte" in through_lines["run_zeros.txt"]
    assert "line longer than 1 MiB" in through_lines["run_endless_line.txt"]
    assert "NUL byte" in through_lines["qrels_nul_qid.txt"]
    assert through_lines["run_long_docno.txt"].startswith("[('401', ['D1', 'DDD")  # no error


def test_line_ends_of_every_kind_read_the_same_through_both_paths(tmp_path: Path) -> None:
    # \r alone ends a line for the line reader (issue 13): so it does for the bulk reader,
    # also where a block ends between \r and \n
    lines = [b"401 Q0 D1 1 2.5 r", b"401 Q0 D2 2 1.5 r", b"402 Q0 D1 1 0.5 r"]
    for end in (b"\r", b"\r\n", b"\n"):
        path = tmp_path / "run.txt"
        path.write_bytes(end.join(lines) + end)
        for block in (8, 17, 18, 19, bulk.BLOCK_BYTES):
            columns = bulk._read_run(str(path), block)
            precise = read_run_lines(path)
            assert columns.topics.keys() == precise.topics.keys()
            for qid, topic in precise.topics.items():
                assert columns.topics[qid].docnos == topic.docnos
                assert columns.topics[qid].lines.tolist() == topic.lines.tolist()


def _outcome(read, path: Path) -> str:
    """The error message, or the records read."""
    try:
        records = read(path)
    except FormatError as exc:
        return f"error: {exc}"
    if hasattr(records, "topics"):
        return repr(
            [(q, t.docnos, t.scores.tolist(), t.lines.tolist()) for q, t in records.topics.items()]
        )
    return repr((records.qids, records.docnos, records.grades.tolist(), records.lines.tolist()))
