"""Imports of real files through the store: counts checked against the files themselves,
qrels round trips, and failed imports that leave the project byte-for-byte unchanged."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from judgeapp.cli import main
from judgeapp.formats import FormatError, read_qrels
from judgeapp.services.imports import import_documents, import_qrels, import_runs, import_topics
from judgeapp.services.overview import project_info
from judgeapp.services.policy import qrels_rows
from judgeapp.store import Store
from tests.formats.malformed_cases import CASES, MALFORMED


def _text(path: Path) -> str:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8-sig", errors="replace")


def count_topics_in(path: Path) -> int:
    """How many topics a file holds, counted without judgeapp's readers."""
    text = _text(path)
    if "<top>" in text.lower():
        return len(re.findall(r"<num>", text, flags=re.IGNORECASE))
    if "<DOCNO>" in text:  # Anserini's CACM topics reuse the TREC document layout
        return len(re.findall(r"<DOCNO>", text))
    if re.search(r"<topic\b", text):
        return len(re.findall(r"<topic\b", text))
    if text.startswith(".I"):
        # a record is a .I line followed by a field; CACM's query.text ends with a bare `.I 0`
        return len(re.findall(r"^\.I[^\n]*\r?\n\.[A-Z]", text, flags=re.MULTILINE))
    return sum(1 for line in text.splitlines() if line.strip())  # TSV: one topic a line


def data_lines(path: Path) -> list[str]:
    return [
        line
        for line in _text(path).splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


@pytest.fixture
def store(project_db):
    s = Store.open(project_db)
    yield s
    s.close()


def topic_files(shared_data: Path) -> list[Path]:
    return sorted(p for p in (shared_data / "topics").iterdir() if p.name != "topics.json")


def test_every_topic_file_imports_with_its_count(shared_data, tmp_path):
    for path in topic_files(shared_data):
        with Store.open(tmp_path / f"{path.name}.db") as store:
            report = import_topics(store, [path])
            expected = count_topics_in(path)
            assert report.records == expected, path.name
            assert len(store.topics.all()) == expected, path.name
            assert all(t.title or t.description for t in store.topics.all()), path.name


def test_topic_registry_json_is_refused_clearly(shared_data, store):
    with pytest.raises(FormatError, match=r"topics\.json"):
        import_topics(store, [shared_data / "topics" / "topics.json"])
    assert store.topics.all() == []


def test_tipster_and_zero_padded_qids_are_kept_as_written(shared_data, store):
    import_topics(store, [shared_data / "topics" / "topics.adhoc.51-100.txt"])
    qids = [t.qid for t in store.topics.all()]
    assert qids[0] == "051" and len(qids) == 50
    assert store.topics.get("051").title


@pytest.mark.parametrize(
    "name",
    [
        "qrels.adhoc.351-400.txt",
        "qrels.antique_test.txt",
        "qrels.core18.txt",
        "qrels.covid-round1.txt",
        "qrels.dl19-doc.txt",
        "qrels.dl19-passage.txt",
        "qrels.dl20-doc.txt",
        "qrels.dl20-passage.txt",
        "qrels.web.201-250.txt",
    ],
)
def test_qrels_import_and_export_round_trip(shared_data, tmp_path, name):
    path = shared_data / "qrels" / name
    lines = data_lines(path)
    expected = {(p[0], p[2], int(p[3])) for p in (line.split() for line in lines)}
    db = str(tmp_path / "p.db")
    assert main(["import", "qrels", db, str(path), "--create"]) == 0
    out = tmp_path / "out.qrels"
    assert main(["export", "qrels", db, "--out", str(out)]) == 0
    exported = [line.split() for line in out.read_text().splitlines()]
    assert len(exported) == len(lines) == len(expected)
    assert {(q, d, int(g)) for q, _, d, g in exported} == expected
    # the exported file is what trec_eval expects: four columns, iteration 0
    assert {it for _, it, _, _ in exported} == {"0"}
    with Store.open(db) as store:
        assert len(store.judgments.all()) == len(lines)
        assert {a.name for a in store.team.assessors()} == {name}


@pytest.mark.parametrize(
    ("name", "docs", "queries", "rels", "n_docs", "n_topics"),
    [
        ("cranfield", "cran.all.1400", "cran.qry", "cranqrel", 1400, 225),
        ("cisi", "CISI.ALL", "CISI.QRY", "CISI.REL", 1460, 112),
        ("cacm", "cacm.all", "query.text", "qrels.text", 3204, 64),
    ],
)
def test_classic_collections_import_with_counts(
    shared_data, store, name, docs, queries, rels, n_docs, n_topics
):
    folder = shared_data / "collections" / name
    assert count_topics_in(folder / docs) == n_docs
    assert count_topics_in(folder / queries) == n_topics
    assert import_documents(store, [folder / docs]).records == n_docs
    assert import_topics(store, [folder / queries]).records == n_topics
    report = import_qrels(store, [folder / rels], [name])
    assert report.records == len(data_lines(folder / rels))
    info = project_info(store)
    assert (info.documents, info.topics) == (n_docs, n_topics)
    # every judged document has its text, and every judged query is one of the queries
    assert info.judged_docs_without_text == 0
    assert info.judged_topics_missing == []
    first = data_lines(folder / rels)[0].split()
    assert store.judgments.all(qid=str(int(first[0])))[0].assessor == name


def test_robust03_runs_import_with_counts(shared_data, store):
    paths = sorted((shared_data / "robust03" / "runs").glob("input.*.gz"))
    assert len(paths) == 17
    report = import_runs(store, paths)
    runs = {r.name: r for r in store.runs.all()}
    assert len(runs) == 17
    lines_total = 0
    for path in paths:
        lines = data_lines(path)
        tag = lines[0].split()[5]
        topics = {line.split()[0] for line in lines}
        assert runs[tag].n_entries == len(lines), path.name
        assert runs[tag].n_topics == len(topics), path.name
        lines_total += len(lines)
    assert report.records == lines_total
    assert store.runs.ranked_lists().n_entries == lines_total
    ids, scores = store.runs.ranked_lists(runs=["humR03dc"], qids=["601"]).runs["humR03dc"]["601"]
    assert len(ids) == 100 and (scores[:-1] >= scores[1:]).all()


def test_robust03_qrels_and_topics(shared_data, store):
    base = shared_data / "robust03"
    import_topics(store, [base / "topics.robust04.301-450.601-700.txt"])
    report = import_qrels(store, [base / "robust03_qrels.txt"])
    assert report.records == 128_796 == len(data_lines(base / "robust03_qrels.txt"))
    assert len(store.topics.all()) == 250
    qrels = read_qrels(base / "robust03_qrels.txt")
    assert len(qrels_rows(store)) == len(qrels)


def _kind_for_import(kind: str) -> str:
    return {"docs": "docs", "topics": "topics", "run": "run", "qrels": "qrels"}[kind]


@pytest.mark.parametrize(("relative", "kind", "message"), CASES, ids=[c[0] for c in CASES])
def test_malformed_input_leaves_the_project_byte_for_byte_unchanged(
    tmp_path, relative, kind, message, capsys
):
    db = tmp_path / "p.db"
    # a project with content of every kind, so a partial write would show
    with Store.open(db) as store:
        store.topics.put([])
    good = tmp_path / "good.qrels"
    good.write_text("1 0 d1 1\n1 0 d2 0\n")
    assert main(["import", "qrels", str(db), str(good)]) == 0
    run = tmp_path / "good.run"
    run.write_text("1 Q0 d1 1 2.0 good\n1 Q0 d3 2 1.0 good\n")
    assert main(["import", "run", str(db), str(run)]) == 0
    capsys.readouterr()
    before = db.read_bytes()
    # the bad file comes after a good one: the good one must not land either
    first_good = {"run": run, "qrels": good}.get(kind)
    files = ([str(first_good)] if first_good else []) + [str(MALFORMED / relative)]
    extra = ["--replace"] if kind in ("run", "qrels") else []
    code = main(["import", _kind_for_import(kind), str(db), *files, *extra])
    err = capsys.readouterr().err
    assert code != 0
    assert message in err
    assert db.read_bytes() == before
    with Store.open(db) as store:
        assert store.integrity_check() == "ok"
        assert qrels_rows(store) == [("1", "d1", 1), ("1", "d2", 0)]
        assert [r.name for r in store.runs.all()] == ["good"]
