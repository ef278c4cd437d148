"""The malformed-input corpus through the bulk readers and through the line-precise ones:
the same message, naming file, line and problem, and an import that fails leaves the
project exactly as it was, whichever reader read the files."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgeapp.formats import FormatError, bulk, read_qrels, read_run
from judgeapp.formats.bulk import Irregular, read_qrels_columns, read_run_columns
from judgeapp.formats.detect import resolve_format
from judgeapp.formats.qrels import read_trec_qrels_lines
from judgeapp.formats.runs import read_run_lines
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
            assert [r.name for r in store.runs()] == ["good"]
            assert store.totals()["judgments"] == 2
    assert messages[0] == messages[1]
    assert expected in messages[0]
