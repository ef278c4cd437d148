"""A project whose judgments are all imported (issue 30, item 10): the topic list shows
what the imported qrels judge in the pool, beside the assessor's own count, and opening a
topic opens the pool being judged, not merely the newest."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from judgeapp.services.judging import JudgingService
from judgeapp.services.pools import PoolService
from judgeapp.store import Store
from judgeapp.ui.models import TopicTableModel
from tests.ui.waiting import open_project, settled


def _pooled(lists, depth: int) -> dict[str, set[str]]:
    """The depth-`depth` pool of every run, from the run files' lists (not the pooler)."""
    out: dict[str, set[str]] = {}
    for per_topic in lists.values():
        for qid, docs in per_topic.items():
            out.setdefault(qid, set()).update(docs[:depth])
    return out


def _imported(qrels_path) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for line in qrels_path.read_text().splitlines():
        qid, _, doc, _grade = line.split()
        out.setdefault(qid, set()).add(doc)
    return out


def test_imported_judgments_are_counted_and_the_judged_pool_opens(
    qtbot, tmp_path, make_window, settings
):
    from live_project import write_project

    project = write_project(tmp_path / "p")
    db = str(project.db)
    with Store.open(db) as store:  # as the `pool` command builds them: no pool chosen
        pools = PoolService(store)
        pools.create_pool("depth-5", strategy="depth", params={"depth": 5}, judging_order="blind")
        pools.create_pool("deep-30", strategy="depth", params={"depth": 30}, judging_order="blind")
    shallow, deep = _pooled(project.lists, 5), _pooled(project.lists, 30)
    imported = _imported(project.qrels)

    def share(pool: dict[str, set[str]]) -> float:
        judged = sum(len(docs & imported.get(q, set())) for q, docs in pool.items())
        return judged / sum(len(docs) for docs in pool.values())

    assert share(shallow) > share(deep)  # the imported qrels cover the shallow pool more
    settings.setValue("assessor", "alice")
    window, controller = make_window()
    open_project(controller, db)
    view = window.topics_view
    model = view.model
    qtbot.waitUntil(lambda: model.rowCount() == 4)
    # alice judged nothing: Judged 0, and the imported qrels' count beside it, visible
    header = view.table.horizontalHeader()
    assert not view.table.isColumnHidden(TopicTableModel.IMPORTED)
    assert (
        header.visualIndex(TopicTableModel.IMPORTED)
        == header.visualIndex(TopicTableModel.JUDGED) + 1
    )
    for r in range(model.rowCount()):
        qid = model.index(r, TopicTableModel.ID).data()
        assert model.index(r, TopicTableModel.JUDGED).data() == "0"
        expected = len(shallow[qid] & imported.get(qid, set()))
        assert model.index(r, TopicTableModel.IMPORTED).data() == str(expected)
        assert model.index(r, TopicTableModel.POOL).data() == str(len(shallow[qid]))
    assert "Pool: depth-5" in window.pool_label.text()
    # Enter on topic 1 opens it in the pool being judged
    view.table.setFocus()
    view.table.selectRow(model.row_of("1"))
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(view.table, Qt.Key.Key_Return)
    settled()
    queue = controller.judging.queue
    assert queue is not None and queue.qid == "1"
    assert len(queue.topic.doc_ids) == len(shallow["1"])
    # bob judges in the deep pool only: for him, that is the pool being judged
    with Store.open(db) as store:
        deep_only = sorted(deep["1"] - shallow["1"])[:3]
        bob = JudgingService(store, "bob")
        for doc in deep_only:
            bob.record("1", doc, 1)
        from judgeapp.services.workbench import Workbench

        assert Workbench(store, "bob").pool_name() == "deep-30"
        assert Workbench(store, "alice").pool_name() == "depth-5"
