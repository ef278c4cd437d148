"""Eight writers at once on one project, on SQLite and on PostgreSQL: six `judge` streams of
four assessors (alice twice, on different topics), an `import run` and an `evaluate --db`:
none fails, every recorded judgment is in the project and its history, once."""

from __future__ import annotations

import pytest

from tests.load_driver import check, prepare, run_load, streams_for, write_inputs


@pytest.mark.slow
def test_eight_writers_lose_nothing_and_fail_nowhere(tmp_path, project_db):
    inputs = write_inputs(tmp_path / "in", topics=20, docs=40, run_topics=20)
    prepare(project_db, inputs, docs=40)
    streams = streams_for(per_stream=150, docs=40)
    result = run_load(project_db, streams, inputs["late"])
    assert result.failures == []
    report = check(project_db, result)
    assert report["recorded"] == 6 * 150
    assert report["missing"] == 0
    assert report["history_events"] == 6 * 150  # each line judged a new document: one event
    assert report["duplicate_events"] == 0
    assert report["late_run_imported"] == 1
    assert str(report["integrity"]).startswith("ok")
    assert "P_10" in result.others["evaluate --db"].stdout
