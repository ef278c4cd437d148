"""The window beside other writers: what other processes commit appears within 2 s, and a
grade key whose write has to wait for another writer says so and lands afterwards."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from judgeapp.services.policy import qrels_rows
from judgeapp.store import Store
from tests.ui.waiting import open_project, settled

ROOT = Path(__file__).resolve().parents[2]
ASSESSOR = "alice"


def choose_assessor(controller, name: str) -> None:
    dialog = controller.show_assessor_dialog()
    dialog.combo.setCurrentText(name)
    settled()
    dialog.accept()
    settled()


@pytest.fixture
def shared(tmp_path, make_window, project_db):
    """The generated project (on SQLite or PostgreSQL) with a depth-10 pool, open in the
    window as alice on topic 1."""
    from live_project import write_project

    project = write_project(tmp_path / "p", db=project_db)
    with Store.open(project_db) as store:
        from judgeapp.services.pools import PoolService

        PoolService(store).create_pool("pool", params={"depth": 10}, judging_order="rank")
    window, controller = make_window()
    open_project(controller, project_db)
    choose_assessor(controller, ASSESSOR)
    controller.open_topic("1")
    settled()
    return project, window, controller


def run_main(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_another_process_imports_and_judges_and_the_window_follows(qtbot, shared, tmp_path):
    project, window, controller = shared
    db = str(project.db)
    judging, topics = controller.judging, window.topics_view
    queue = judging.queue
    assert queue is not None and queue.qid == "1"
    pooled_2 = sorted(controller.workbench.pooling.pool_topic("pool", "2").doc_ids.tolist())
    with Store.open(db) as store:
        docnos = store.documents.docnos_of(pooled_2)
    # another process: a late run, 20 of alice's judgments of topic 2 (her own work from
    # another machine), and bob's judgment of the document alice sees now
    late = tmp_path / "late.run"
    late.write_text("".join(f"1 Q0 LATE-{i} {i} {-i} late\n" for i in range(1, 6)))
    assert run_main("import", "run", db, str(late)).returncode == 0
    lines = "".join(f"2 {docnos[d]} {i % 3}\n" for i, d in enumerate(pooled_2[:20]))
    result = run_main("judge", db, "--assessor", ASSESSOR, stdin=lines)
    assert result.returncode == 0, result.stderr
    current = judging.current
    docno_now = queue.item(current).docno
    result = run_main("judge", db, "--assessor", "bob", stdin=f"1 {docno_now} 2\n")
    assert result.returncode == 0, result.stderr
    started = time.monotonic()

    def followed() -> bool:
        row = topics.model.topic(topics.model.row_of("2"))
        q = judging.queue
        return row.judged == 20 and q is not None and q.item(current).others == 1

    qtbot.waitUntil(followed, timeout=5000)
    assert time.monotonic() - started < 2.0
    assert "late" in controller.workbench.run_names()
    assert "also judged by 1 other" in judging.view.list_model.state_text(
        judging.queue.item(current)
    )
    # and the next grade key is recorded as usual
    assert judging.current == current
    judging.view.grade_requested.emit(1)
    settled()  # committed in the writing lane
    with Store.open(db) as store:
        mine = {(q, d): g for q, d, g in qrels_rows(store, [ASSESSOR])}
    assert mine[("1", docno_now)] == 1
    assert sum(1 for (q, _d) in mine if q == "2") == 20


HOLD_LOCK = """
import sys, time
from judgeapp.store import Store
with Store.open(sys.argv[1]) as store, store.db.begin():
    print("holding", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def test_a_grade_key_waits_behind_a_long_import_then_lands(qtbot, shared):
    project, _window, controller = shared
    db = str(project.db)
    judging = controller.judging
    doc = judging.current
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, db, "3"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert holder.stdout.readline().strip() == "holding"
        judging.view.grade_requested.emit(2)
        assert judging.pending is not None  # not recorded yet, not dropped either
        # the next document at once; with the frame after it, the judged one's row says it
        # is not saved yet
        following = judging.current
        assert following != doc
        model = judging.view.list_model
        qtbot.waitUntil(lambda: model.state_text(judging.queue.item(doc)).endswith("(saving…)"))
        qtbot.waitUntil(lambda: judging.view.notice.isVisible(), timeout=3000)
        assert "Waiting for another writer" in judging.view.notice.text()
        judging.view.grade_requested.emit(0)  # a second key says why it does nothing
        assert "Still saving the judgment before" in judging.view.notice.text()
        assert judging.current == following
        qtbot.waitUntil(lambda: judging.pending is None, timeout=15_000)
    finally:
        holder.wait(timeout=30)
    assert not judging.view.notice.isVisible()
    assert judging.queue.item(doc).grade == 2
    assert "saving" not in model.state_text(judging.queue.item(doc))
    assert judging.current == following  # still on the next document
    with Store.open(db) as store:
        docno = store.documents.docnos_of([doc])[doc]
        assert ("1", docno, 2) in qrels_rows(store, [ASSESSOR])


def test_a_screenshot_never_changes_the_project(qtbot, tmp_path, project_db):
    """Whatever form the project takes (a file, an sqlite:/// URL, a server), the picture
    is taken of a copy: the project keeps its judgments, pools and history."""
    from live_project import write_project

    from judgeapp.screenshots import render

    write_project(tmp_path / "p", db=project_db)
    forms = [project_db]
    if "://" not in project_db:
        forms.append(f"sqlite:///{project_db}")

    def state():
        with Store.open(project_db) as store:
            return store.pools.names(), len(store.history.export()), qrels_rows(store)

    before = state()
    assert before[0] == []  # no pool: the copy gets one, the project must not
    for i, db in enumerate(forms):
        out = render("judging", tmp_path / f"shot{i}.png", db, simulate=5, topics=2)
        assert out.stat().st_size > 0
        assert state() == before
