"""The search-the-collection panel, driven through the real window (issue 28): search the
whole collection for the open topic, judge a document outside the pool with a grade key,
see it counted in the dashboard (the runs that retrieved it change, as trec_eval computes
them from the qrels), exported in the qrels, and listed as found by search in `export
judgments`; undo takes it back everywhere; the search is in the search log."""

from __future__ import annotations

import json

import pytest
from live_project import oracle_ap, qrels_dict, write_project
from PySide6.QtCore import Qt

from judgeapp.cli import main
from judgeapp.records import Changes
from judgeapp.services.policy import qrels_rows
from judgeapp.services.pools import PoolService
from judgeapp.ui.dashboard import find_dashboard
from tests.ui.test_trec_scale import press
from tests.ui.waiting import open_project, settled

ASSESSOR = "alice"
TIMEOUT = 60_000


def dashboard_ap(dashboard) -> dict[str, float]:
    model = dashboard.view.model
    return {run: model.value(run, "AP") for run in model.labels()}


@pytest.fixture
def searching(tmp_path, qtbot, make_window, settings):
    """The generated project open as alice with a depth-10 pool, topic 4 open, the
    dashboard in its own window."""
    project = write_project(tmp_path / "p")
    settings.setValue("assessor", ASSESSOR)
    window, controller = make_window()
    dashboard = find_dashboard(controller)
    dashboard.set_own_window(True)
    qtbot.waitExposed(dashboard.own_window)
    open_project(controller, project.db)
    wb = controller.workbench
    wb.build_pool("pool", list(project.runs), "depth", {"depth": 10}, "blind", seed=7)
    controller.apply_changes(Changes(pools=True))
    settled()
    controller.open_topic("4")  # judged by the source, nothing relevant yet
    settled()
    qtbot.waitUntil(dashboard.ready, timeout=TIMEOUT)
    return project, window, controller, dashboard


def test_search_judge_outside_the_pool_counted_exported_and_listed(qtbot, searching, tmp_path):
    project, window, controller, dashboard = searching
    store = controller.workbench.store
    pooled = {
        store.documents.docnos_of([int(d)])[int(d)]
        for d in PoolService(store).pool_topic("pool", "4").doc_ids
    }
    # a document of topic 4 that runs retrieved below the pool's depth
    target = next(
        d for lists in project.lists.values() for d in lists.get("4", [])[10:] if d not in pooled
    )
    retrieved = {run for run, lists in project.lists.items() if target in lists.get("4", [])}
    before = dashboard_ap(dashboard)

    press(qtbot, window, "Ctrl+Shift+F")  # the search panel, its search box focused
    search = controller.search
    assert window.tabs.currentWidget() is window.search_view
    qtbot.keyClicks(search.view.query, target)  # "things seen in document D3-0xx"
    qtbot.keyClick(search.view.query, Qt.Key.Key_Return)
    settled()
    hits = search.view.model.items
    assert hits[0].docno == target and not hits[0].pooled and hits[0].grade is None
    model = search.view.model
    assert model.index(0, model.POOL).data() == "outside"
    assert search.current == 0 and window.search_view.viewer.header.text().startswith(target)
    assert target in window.search_view.viewer.text.toPlainText()

    with qtbot.waitSignal(dashboard.updated, timeout=TIMEOUT):
        press(qtbot, window, "2")  # the grade key judges the result shown
    settled()
    qtbot.waitUntil(dashboard.ready, timeout=TIMEOUT)
    assert model.items[0].grade == 2 and "2" in model.index(0, model.GRADE).data()
    # counted in the dashboard: exactly the runs that retrieved it change, to trec_eval's AP
    after = dashboard_ap(dashboard)
    assert {run for run in after if after[run] != pytest.approx(before[run])} == retrieved
    oracle = oracle_ap(project, qrels_dict(qrels_rows(store)))[1]
    assert after == pytest.approx(oracle, abs=1e-12)
    # exported in the qrels, from the window
    qrels = tmp_path / "all.qrels"
    controller.export_qrels(str(qrels))
    settled()
    assert f"4 0 {target} 2" in qrels.read_text().splitlines()
    # listed as found by search, with its query, in `export judgments`
    out = tmp_path / "judgments.jsonl"
    assert main(["export", "judgments", str(project.db), "--out", str(out)]) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    [line] = [r for r in lines if r["docno"] == target and r["assessor"] == ASSESSOR]
    assert (line["grade"], line["found_by"], line["query"], line["origin"]) == (
        2,
        "search",
        target,
        "search",
    )
    assert {r["found_by"] for r in lines if r is not line} == {"pool"}  # the others
    # the search log holds the search, and whose it was
    assert [(e.assessor, e.qid, e.scope, e.query) for e in store.search.logged()] == [
        (ASSESSOR, "4", "collection", target)
    ]
    # undo takes it back: the mark, the dashboard, the qrels
    with qtbot.waitSignal(dashboard.updated, timeout=TIMEOUT):
        press(qtbot, window, "Ctrl+Z")
    settled()
    qtbot.waitUntil(dashboard.ready, timeout=TIMEOUT)
    assert model.items[0].grade is None
    assert dashboard_ap(dashboard) == pytest.approx(before, abs=1e-12)
    assert target not in {d for q, d, _g in qrels_rows(store, [ASSESSOR]) if q == "4"}


def test_a_pooled_document_judged_in_the_search_is_judged_in_the_judging_view(qtbot, searching):
    _project, window, controller, _dashboard = searching
    judging = controller.judging
    queue = judging.queue
    doc = next(item for item in queue.items if item.grade is None)
    press(qtbot, window, "Ctrl+Shift+F")
    search = controller.search
    search.view.query.setText(doc.docno)
    qtbot.keyClick(search.view.query, Qt.Key.Key_Return)
    settled()
    assert search.view.model.items[0].docno == doc.docno and search.view.model.items[0].pooled
    press(qtbot, window, "1")
    assert judging.queue.item(doc.doc_id).grade == 1  # the list and the counts follow
    row = window.topics_view.model.row_of("4")
    assert window.topics_view.model.topic(row).judged == queue.counts()[1]
    # and a grade given in the judging view shows in the search's marks
    press(qtbot, window, "Ctrl+2")
    judging.show_document(doc.doc_id)
    press(qtbot, window, "3")
    assert search.view.model.items[0].grade == 3
