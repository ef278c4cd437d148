"""Evaluation reads a project other writers are changing: a run imported while
`evaluate --db` reads is evaluated whole or not at all, never half-seen."""

from __future__ import annotations

from pathlib import Path

from judgeapp.services.evaluation import load_for_evaluation
from judgeapp.services.imports import import_qrels, import_runs, import_topics
from judgeapp.store import Store


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_a_run_imported_while_evaluation_reads_is_not_half_seen(tmp_path, project_db):
    topics = _write(tmp_path / "topics.tsv", "1\tfirst\n2\tsecond\n")
    qrels = _write(tmp_path / "qrels", "1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n")
    first = _write(tmp_path / "first.run", "1 Q0 d1 1 2.0 first\n2 Q0 d3 1 1.0 first\n")
    late = _write(tmp_path / "late.run", "1 Q0 d2 1 2.0 tagged\n2 Q0 d1 1 1.0 tagged\n")
    with Store.open(project_db) as store:
        import_topics(store, [topics])
        import_qrels(store, [qrels])
        import_runs(store, [first], ["first"])

    reader = Store.open(project_db, create=False)
    ranked_lists = reader.runs.ranked_lists

    def another_writer_imports_first(runs=None, qids=None):
        with Store.open(project_db, create=False) as writer:
            import_runs(writer, [late], ["late"])
        return ranked_lists(runs, qids)

    reader.runs.ranked_lists = another_writer_imports_first  # type: ignore[method-assign]
    try:
        _judgments, runs = load_for_evaluation(reader)
    finally:
        reader.close()
    assert [(r.name, r.tag) for r in runs] == [("first", "first"), ("late", "tagged")]
    late_run = runs[1]
    assert sorted(late_run.topics) == ["1", "2"]
