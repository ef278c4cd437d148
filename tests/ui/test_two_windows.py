"""Two windows on one project file, each in its own process (issue 30, item 2): what the
other window judges appears here without moving the reader. The "Unjudged" filter drops
what the other judged, the document being read stays (with the other's grade on it and a
notice), its row stays in the list while it is read, and the list keeps its numbering."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from judgeapp.store import Store
from judgeapp.ui.models import PoolTableModel
from tests.ui.test_main_window import choose_assessor, key
from tests.ui.waiting import open_project, settled

ROOT = Path(__file__).resolve().parents[2]
SECOND = Path(__file__).with_name("second_window.py")
ASSESSOR = "alice"


def second_window(db: str, topic: str, grades: str) -> list[str]:
    """The other window, a process of its own: judges `grades` in `topic`; its docnos."""
    done = subprocess.run(
        [sys.executable, str(SECOND), db, ASSESSOR, topic, grades],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.split()


def shown_rows(view) -> list[int]:
    return [r for r in range(view.list_model.rowCount()) if not view.list.isRowHidden(r)]


def numbering(view) -> dict[str, str]:
    model = view.list_model
    return {
        model.index(r, PoolTableModel.DOCNO).data(): model.index(r, PoolTableModel.POSITION).data()
        for r in range(model.rowCount())
    }


@pytest.mark.parametrize("order", ["rank", "blind"])
def test_what_the_other_window_judges_appears_without_moving_the_reader(
    qtbot, tmp_path, make_window, project_db, order
):
    from live_project import write_project

    from judgeapp.services.pools import PoolService

    write_project(tmp_path / "p", db=project_db)
    with Store.open(project_db) as store:
        PoolService(store).create_pool("pool", params={"depth": 10}, judging_order=order)
    window, controller = make_window()
    open_project(controller, project_db)
    choose_assessor(controller, ASSESSOR)
    controller.open_topic("1")
    settled()
    window.show_view(window.judging_view)
    view, judging = window.judging_view, controller.judging
    view.filter.setCurrentIndex(view.filter.findData("unjudged"))
    settled()
    reading = judging.current
    queue = judging.queue
    assert queue is not None and reading is not None
    docno = queue.item(reading).docno
    before = numbering(view)
    assert len(shown_rows(view)) == len(queue.items)  # nothing judged yet

    # the other window, as the same assessor, judges the first four in the same order:
    # the document read here among them
    judged = second_window(project_db, "1", "2101")
    assert docno in judged
    doc_ids = {item.docno: item.doc_id for item in queue.items}

    def followed() -> bool:
        q = judging.queue
        return q is not None and all(q.item(doc_ids[d]).grade is not None for d in judged)

    qtbot.waitUntil(followed, timeout=10_000)
    settled()
    queue = judging.queue
    assert queue is not None
    # the reader is where they were, told what happened, the other's grade shown
    assert judging.current == reading
    assert queue.item(reading).grade == 2
    assert "another window" in view.notice.text()
    assert view.grade_bar.buttons[2].isChecked()
    # the "Unjudged" filter: every row shown is unjudged, but the one being read
    rows = shown_rows(view)
    row_read = queue.row_of(reading)
    assert row_read in rows
    for r in rows:
        if r != row_read:
            assert queue.items[r].grade is None, queue.items[r].docno
    assert len(rows) == len(queue.items) - len(judged) + 1
    # and the numbering did not change
    assert numbering(view) == before
    # U: on to an unjudged document; the row read before leaves the "Unjudged" list
    key(qtbot, "U")
    assert judging.current is not None and queue.item(judging.current).grade is None
    assert view.list.isRowHidden(row_read)
    assert all(queue.items[r].grade is None for r in shown_rows(view))
