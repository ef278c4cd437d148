"""The evaluator's dashboard in the real main window, on small generated projects.

Judgments go through the judging view's grade keys and undo through Ctrl+Z, as an
assessor makes them; the numbers shown are checked against trec_eval (pytrec_eval on the
qrels exported from the store, the `evaluate` command for the clipboard text)."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from live_project import (
    evaluate_command_output,
    oracle_ap,
    oracle_t_marks,
    qrels_dict,
    read_run_dict,
    write_project,
)
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from judgeapp.services.live_eval import JudgmentFilter
from judgeapp.services.policy import qrels_rows
from judgeapp.services.pools import PoolService
from judgeapp.store import Changes, Store
from judgeapp.ui.dashboard import find_dashboard
from judgeapp.ui.dashboard.plots import COLOURS
from tests.ui.waiting import open_project, settled

ROOT = Path(__file__).resolve().parents[2]
ASSESSOR = "alice"
TIMEOUT = 60_000


def key(qtbot, window, text: str, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    """A key press where the user's focus is in the main window."""
    if QApplication.activeWindow() is not window:
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    target = QApplication.focusWidget()
    assert target is not None and window.isAncestorOf(target)
    keys = {"Ctrl+Z": Qt.Key.Key_Z}
    qtbot.keyClick(target, keys.get(text, text), modifier)
    settled()


@pytest.fixture(params=["as-shipped", "worker", "gui-thread"])
def mode(request) -> str:
    return request.param


@pytest.fixture
def opened(tmp_path, qtbot, make_window, settings):
    """A generated project open in the real window, a depth-10 pool, assessor alice."""

    def open_it(threaded: bool = True):
        project = write_project(tmp_path / "p")
        settings.setValue("assessor", ASSESSOR)
        window, controller = make_window()
        dashboard = find_dashboard(controller)
        assert dashboard is not None
        dashboard.jobs.threaded = threaded
        dashboard.set_own_window(True)  # in view beside the judging (hidden, it waits)
        qtbot.waitExposed(dashboard.own_window)
        with qtbot.waitSignal(dashboard.updated, timeout=TIMEOUT):
            open_project(controller, str(project.db))
        settled()
        wb = controller.workbench
        wb.build_pool("pool", list(project.runs), "depth", {"depth": 10}, "blind", seed=7)
        controller.apply_changes(Changes(pools=True))
        settled()
        qtbot.waitUntil(dashboard.ready, timeout=TIMEOUT)
        return project, window, controller, dashboard

    return open_it


def shown(dashboard, measure: str = "AP") -> dict[str, float]:
    model = dashboard.view.model
    return {run: model.value(run, measure) for run in model.labels()}


def docno(controller, doc_id: int) -> str:
    return controller.workbench.store.documents.docnos_of([doc_id])[doc_id]


def show_unjudged(controller, qid: str) -> int:
    """Open `qid` in the judging view on a pooled document nobody judged yet (the blind
    order is not the same in every process: document ids are given in set order)."""
    controller.open_topic(qid)
    settled()
    store = controller.workbench.store
    judged = {j.doc_id for j in store.judgments.all(qid)}
    doc = next(
        int(d) for d in PoolService(store).pool_topic("pool", qid).doc_ids if int(d) not in judged
    )
    controller.judging.show_document(doc)
    return doc


def oracle_means(project, controller, assessors=None, level=1) -> dict[str, float]:
    rows = qrels_rows(controller.workbench.store, assessors)
    return oracle_ap(project, qrels_dict(rows), level)[1]


def test_judging_a_relevant_document_changes_exactly_the_runs_that_retrieved_it(
    qtbot, opened, mode
):
    project, window, controller, dashboard = opened(threaded=mode != "gui-thread")
    before = shown(dashboard)
    assert before == pytest.approx(oracle_means(project, controller), abs=1e-12)
    controller.open_topic("4")  # judged by the source, nothing relevant yet
    settled()
    judging = controller.judging
    store = controller.workbench.store
    pooled = [int(d) for d in PoolService(store).pool_topic("pool", "4").doc_ids]

    def retrieved_by(doc: int) -> set[str]:
        name = docno(controller, doc)
        return {run for run, lists in project.lists.items() if name in lists.get("4", [])}

    # a pooled document some runs retrieved and others did not, shown in the judging view
    doc = next(d for d in pooled if 0 < len(retrieved_by(d)) < len(project.runs))
    retrieved = retrieved_by(doc)
    judging.show_document(doc)
    assert judging.current == doc

    with qtbot.waitSignal(dashboard.updated, timeout=TIMEOUT):
        key(qtbot, window, "2")
    settled()
    after = shown(dashboard)
    assert {run for run in after if after[run] != before[run]} == retrieved
    assert after == pytest.approx(oracle_means(project, controller), abs=1e-12)
    highlighted = {run for run, m in dashboard.view.model.highlighted() if m == "AP"}
    assert highlighted == retrieved
    model = dashboard.view.model
    for run in retrieved:
        delta = after[run] - before[run]
        assert model.delta(run, "AP") == pytest.approx(delta)
        cell = model.index(model.row_of(run), 1)
        shown_delta = cell.data(Qt.ItemDataRole.DisplayRole).split()[-1]
        assert float(shown_delta.replace("−", "-")) == pytest.approx(delta, abs=5e-5)

    with qtbot.waitSignal(dashboard.updated, timeout=TIMEOUT):
        key(qtbot, window, "Ctrl+Z", Qt.KeyboardModifier.ControlModifier)
    settled()
    assert judging.queue.item(doc).grade is None
    assert shown(dashboard) == before  # exactly the old values


def test_a_burst_of_judgments_is_one_update_and_one_redraw(qtbot, opened):
    project, window, controller, dashboard = opened()
    view = dashboard.view
    dashboard.set_own_window(True)  # watched beside the judging view
    qtbot.waitExposed(dashboard.own_window)
    qtbot.waitUntil(dashboard.ready, timeout=TIMEOUT)
    assert all(plot.canvas.isVisible() and plot.full_draws for plot in view.plots)
    controller.open_topic("1")
    settled()
    qtbot.waitUntil(dashboard.ready, timeout=TIMEOUT)
    qtbot.wait(50)
    redraws = [plot.redraws for plot in view.plots]
    updates, dropped = dashboard.updates, dashboard.dropped
    # five judgments committed in a row, no event loop in between (a grade key waits for
    # its commit before the next document appears, so keys come one event loop apart; an
    # import or another assessor's burst arrives like this)
    queue, service = controller.judging.queue, controller.workbench.judging
    for item, grade in zip(queue.items, (2, 0, 1, 3, 0), strict=False):
        controller.apply_changes(service.record("1", item.doc_id, grade).changes)
    qtbot.waitUntil(lambda: dashboard.updates > updates and dashboard.ready(), timeout=TIMEOUT)
    # one redraw of each plot whose data changed, none of the others
    drawn = [plot.redraws - r for plot, r in zip(view.plots, redraws, strict=True)]
    assert max(drawn) == 1 and view.progress_plot.redraws - redraws[3] == 1
    qtbot.wait(300)  # no other update arrives later
    assert dashboard.updates == updates + 1
    assert dashboard.dropped == dropped  # coalesced before any work: nothing computed twice
    assert shown(dashboard) == pytest.approx(oracle_means(project, controller), abs=1e-12)
    assert dashboard.snapshot.progress.judged == 5
    dashboard.set_own_window(False)
    assert window.tabs.indexOf(view) >= 0


def test_a_hidden_dashboard_waits_and_catches_up_when_shown(qtbot, opened):
    """Out of sight (another tab in front) it costs the judging nothing: the changed topics
    wait, and showing it brings them all in one update, equal to trec_eval's values."""
    project, window, controller, dashboard = opened()
    dashboard.set_own_window(False)  # back among the tabs, behind the judging view
    controller.open_topic("1")
    settled()
    assert not dashboard.view.isVisible()
    updates = dashboard.updates
    for grade in (2, 0, 1):
        key(qtbot, window, str(grade))
    controller.open_topic("2")
    settled()
    key(qtbot, window, "3")
    qtbot.wait(300)
    assert dashboard.updates == updates and not dashboard.ready()
    assert dashboard.jobs.dirty == {"1", "2"}
    with qtbot.waitSignal(dashboard.updated, timeout=TIMEOUT):
        window.show_view(dashboard.view)
    settled()
    qtbot.waitUntil(dashboard.ready, timeout=TIMEOUT)
    assert dashboard.updates == updates + 1
    assert shown(dashboard) == pytest.approx(oracle_means(project, controller), abs=1e-12)


def test_a_result_overtaken_by_a_judgment_is_dropped(qtbot, opened):
    """An update in the worker that a newer judgment overtakes is not shown: the next one
    (with both judgments) is, once."""
    project, window, controller, dashboard = opened()
    controller.open_topic("1")
    settled()
    qtbot.waitUntil(dashboard.ready, timeout=TIMEOUT)
    gate = threading.Event()
    live = dashboard.jobs.live
    update = live.update

    def held_update(qids, assessor=None):
        gate.wait(30)
        return update(qids, assessor)

    live.update = held_update
    updates, dropped = dashboard.updates, dashboard.dropped
    key(qtbot, window, "2")
    qtbot.waitUntil(lambda: dashboard.jobs.busy, timeout=TIMEOUT)  # the worker has it
    key(qtbot, window, "3")  # comes while it runs
    gate.set()
    qtbot.waitUntil(lambda: dashboard.updates > updates and dashboard.ready(), timeout=TIMEOUT)
    qtbot.wait(200)
    assert dashboard.dropped == dropped + 1 and dashboard.updates == updates + 1
    assert shown(dashboard) == pytest.approx(oracle_means(project, controller), abs=1e-12)
    assert dashboard.snapshot.progress.judged == 2


def test_progress_shows_the_pooling_estimate(qtbot, opened):
    _project, window, controller, dashboard = opened()
    for grade in (1, 0, 0, 2, 0, 0):
        show_unjudged(controller, "2")
        with qtbot.waitSignal(dashboard.updated, timeout=TIMEOUT):
            key(qtbot, window, str(grade))
        settled()
    qtbot.waitUntil(lambda: dashboard.ready() and dashboard.analysis_ready(), timeout=TIMEOUT)
    store = controller.workbench.store
    expected = PoolService(store).estimate_relevant("pool", "2", assessors=[ASSESSOR], min_grade=1)
    assert expected is not None
    assert dashboard.estimate == ("2", (expected.point, expected.low, expected.high))
    plot = dashboard.view.progress_plot
    assert f"estimated total {expected.point:.0f}" in plot.caption.text()
    assert plot.estimate.get_ydata()[0] == pytest.approx(expected.point)
    assert plot.found.get_ydata()[-1] == 2  # two relevant among the six judged


def test_results_of_a_replaced_evaluation_are_dropped(qtbot, opened):
    project, window, controller, dashboard = opened(threaded=True)
    gate = threading.Event()
    dashboard.ops.lane("dashboard").start(lambda: gate.wait(30))  # hold the evaluation thread
    controller.open_topic("2")
    settled()
    updates = dashboard.updates
    key(qtbot, window, "1")
    qtbot.waitUntil(lambda: dashboard.jobs.busy, timeout=TIMEOUT)  # the update waits for the gate
    dashboard.set_filter(JudgmentFilter(include_sources=False))  # a new evaluation
    gate.set()
    qtbot.waitUntil(
        lambda: dashboard.ready() and not dashboard.config.judgments.include_sources,
        timeout=TIMEOUT,
    )
    qtbot.wait(100)
    assert dashboard.dropped >= 1
    assert dashboard.updates == updates + 1  # only the new evaluation was shown
    assert shown(dashboard) == pytest.approx(
        oracle_means(project, controller, [ASSESSOR]), abs=1e-12
    )


def test_significance_marks_follow_the_baseline(qtbot, opened):
    project, _window, controller, dashboard = opened()
    store = controller.workbench.store
    from judgeapp.services.judging import JudgingService

    alice = JudgingService(store, ASSESSOR)
    changes = Changes()
    for qid in ("1", "2", "3", "4"):
        for doc in project.lists["run5"][qid][:4]:
            changes |= alice.record(qid, doc, 1).changes
    controller.apply_changes(changes)
    settled()
    qtbot.waitUntil(lambda: dashboard.ready() and dashboard.marks_ready(), timeout=TIMEOUT)
    model = dashboard.view.model
    for baseline in ("weak", "run1"):
        if dashboard.baseline != baseline:
            combo = dashboard.view.baseline
            combo.setCurrentIndex(combo.findData(baseline))
            settled()
            assert model.significance() is None  # the old baseline's marks are gone
            qtbot.waitUntil(dashboard.marks_ready, timeout=TIMEOUT)
        qrels = qrels_dict(qrels_rows(store))
        per_topic, _ = oracle_ap(project, qrels)
        expected = oracle_t_marks(per_topic, baseline, list(qrels))
        for run, (p, mark) in expected.items():
            assert model.sign(run, "AP") == mark, (baseline, run)
            row = model.row_of(run)
            index = model.index(row, 1)
            assert index.data(model.PValueRole) == pytest.approx(p, rel=1e-9)
            assert f"vs {baseline}" in index.data(Qt.ItemDataRole.ToolTipRole)
            text = index.data(Qt.ItemDataRole.DisplayRole)
            assert ("▲" in text, "▼" in text) == (mark > 0, mark < 0)
        assert model.sign(baseline, "AP") == 0
    assert any(model.sign(run, "AP") for run in project.runs)
    # the ranking's stability is worked out in the same background pass
    warnings = dashboard.view.warnings
    texts = [warnings.item(i).text() for i in range(warnings.count())]
    assert any(text.startswith("ℹ Ranking by AP") for text in texts)


def test_drill_down_per_run_and_per_topic(qtbot, opened):
    project, window, controller, dashboard = opened()
    view = dashboard.view
    window.show_view(view)
    per_topic, _ = oracle_ap(project, qrels_dict(qrels_rows(controller.workbench.store)))
    row = view.model.index(view.model.row_of("run3"), 0)
    view.table.doubleClicked.emit(row)
    drill = view.drill_model
    assert view.tables.currentIndex() == 1 and drill.mode == "run" and drill.key == "run3"
    assert drill.labels() == ("1", "2", "3", "4")
    for qid in drill.labels():
        assert drill.value(qid, "AP") == pytest.approx(per_topic["run3"][qid], abs=1e-12)
    topic_row = drill.index(drill.row_of("3"), 0)
    view.drill_table.doubleClicked.emit(topic_row)
    assert drill.mode == "topic" and drill.key == "3"
    assert drill.labels() == tuple(project.runs)
    for run in project.runs:
        assert drill.value(run, "AP") == pytest.approx(per_topic[run].get("3", 0.0), abs=1e-12)


def test_measures_dialog_validates_and_changes_the_columns(qtbot, opened):
    project, _window, controller, dashboard = opened()
    dialog = dashboard.show_measures_dialog()
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    dialog.editor.setPlainText("map\nbogus@3")
    assert not ok.isEnabled()
    assert "line 2 (bogus@3)" in dialog.problems.text()
    dialog.editor.setPlainText("map\nP.5,10\nnDCG@10")
    assert ok.isEnabled() and not dialog.problems.isVisibleTo(dialog)
    with qtbot.waitSignal(dashboard.updated, timeout=TIMEOUT):
        qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    settled()
    model = dashboard.view.model
    assert [str(m) for m in model.measures()] == ["AP", "P@5", "P@10", "nDCG@10"]
    import pytrec_eval

    qrels = qrels_dict(qrels_rows(controller.workbench.store))
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"P.5"})
    for run, path in project.runs.items():
        scores = evaluator.evaluate(read_run_dict(path))
        want = sum(scores.get(q, {}).get("P_5", 0.0) for q in qrels) / len(qrels)
        assert model.value(run, "P@5") == pytest.approx(want, abs=1e-12)
    # kept with the project
    stored = controller.workbench.store.settings.get("ui.dashboard")
    assert stored["measures"] == ["map", "P.5,10", "nDCG@10"]


def test_filter_controls(qtbot, opened):
    project, window, controller, dashboard = opened()
    view = dashboard.view
    controller.open_topic("1")
    settled()
    with qtbot.waitSignal(dashboard.updated, timeout=TIMEOUT):
        key(qtbot, window, "3")
    settled()
    with qtbot.waitSignal(dashboard.updated, timeout=TIMEOUT):
        view.sources.setChecked(False)
    settled()
    assert shown(dashboard) == pytest.approx(
        oracle_means(project, controller, [ASSESSOR]), abs=1e-12
    )
    assert dashboard.snapshot.qids == ("1",)
    with qtbot.waitSignal(dashboard.updated, timeout=TIMEOUT):
        view.sources.setChecked(True)
    settled()
    with qtbot.waitSignal(dashboard.updated, timeout=TIMEOUT):
        view.level.setValue(2)
    settled()
    assert shown(dashboard) == pytest.approx(
        oracle_means(project, controller, None, level=2), abs=1e-12
    )
    source = view.assessor.findText("qrels-source (imported)")
    with qtbot.waitSignal(dashboard.updated, timeout=TIMEOUT):
        view.assessor.setCurrentIndex(source)
    settled()
    assert not view.sources.isEnabled()
    assert shown(dashboard) == pytest.approx(
        oracle_means(project, controller, ["qrels-source"], level=2), abs=1e-12
    )


def test_exports(qtbot, opened, tmp_path):
    project, window, controller, dashboard = opened()
    window.show_view(dashboard.view)
    qtbot.waitUntil(dashboard.ready, timeout=TIMEOUT)
    store = controller.workbench.store
    expected = evaluate_command_output(project, store, tmp_path)
    assert dashboard.copy_trec_eval() == expected
    assert QApplication.clipboard().text() == expected

    for fmt, suffix, marker in (
        ("csv", "csv", "run,AP,"),
        ("latex", "tex", "\\toprule"),
        ("markdown", "md", "| Run | AP |"),
    ):
        out = dashboard.export_table(tmp_path / f"table.{suffix}", fmt)
        text = out.read_text()
        assert marker in text
        assert all(run in text for run in project.runs)

    pr = dashboard.view.pr_plot
    dashboard.set_plot_runs(["weak", "run1"])  # the worst run is not plotted by default
    qtbot.waitUntil(dashboard.ready, timeout=TIMEOUT)
    for suffix, magic in (("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF")):
        path = pr.save(tmp_path / f"pr.{suffix}")
        assert path.read_bytes()[:5].startswith(magic)
    # the live (animated) lines are in the file, not only the legend's handles
    image = QImage(str(tmp_path / "pr.png"))
    colour = int(COLOURS[0].lstrip("#"), 16)
    hits = sum(
        1
        for x in range(0, image.width(), 2)
        for y in range(0, image.height(), 2)
        if image.pixel(x, y) & 0xFFFFFF == colour
    )
    assert hits > 100
    svg = (tmp_path / "pr.svg").read_text()
    assert "weak" in svg and "run1" in svg  # named in the picture's legend


def test_models_pass_qtmodeltester(qtbot, opened, qtmodeltester):
    _project, window, controller, dashboard = opened()
    view = dashboard.view
    dashboard.show_drill("run", "run2")
    show_unjudged(controller, "2")
    with qtbot.waitSignal(dashboard.updated, timeout=TIMEOUT):
        key(qtbot, window, "3")
    settled()
    qtmodeltester.check(view.model)
    qtmodeltester.check(view.drill_model)
    changed = [run for run, m in view.model.highlighted()]
    assert changed  # live changes came as dataChanged, not resets
    resets = view.model.resets
    with qtbot.waitSignal(dashboard.updated, timeout=TIMEOUT):
        key(qtbot, window, "0")
    settled()
    assert view.model.resets == resets


def test_highlight_ends_and_the_tooltip_explains(qtbot, opened):
    _project, window, controller, dashboard = opened()
    dashboard.display.highlight_timer.setInterval(200)
    show_unjudged(controller, "3")
    with qtbot.waitSignal(dashboard.updated, timeout=TIMEOUT):
        key(qtbot, window, "3")
    settled()
    model = dashboard.view.model
    cells = model.highlighted()
    assert cells
    run, measure = cells[0]
    index = model.index(model.row_of(run), [str(m) for m in model.measures()].index(measure) + 1)
    assert "changed by" in index.data(Qt.ItemDataRole.ToolTipRole)
    assert index.data(Qt.ItemDataRole.BackgroundRole) is not None
    qtbot.waitUntil(lambda: not model.highlighted(), timeout=5_000)
    assert index.data(model.DeltaRole) is None


def test_dashboard_screenshot(tmp_path, qtbot, make_window):
    from judgeapp.screenshots import render

    project = write_project(tmp_path / "p")
    out = render("dashboard", tmp_path / "dashboard.png", str(project.db), (1000, 700))
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1000, 700)
    colours = {image.pixel(x, y) for x in range(0, 1000, 5) for y in range(0, 700, 5)}
    assert len(colours) > 40
    with Store.open(project.db) as store:
        assert store.pools.all() == []  # taken on a copy


def test_no_judgments_no_numbers(qtbot, make_window, tmp_path, settings):
    db = tmp_path / "empty.db"
    _window, controller = make_window()
    dashboard = find_dashboard(controller)
    with qtbot.waitSignal(dashboard.updated, timeout=TIMEOUT):
        open_project(controller, str(db), create=True)
    settled()
    assert dashboard.view.model.rowCount(QModelIndex()) == 0
    assert dashboard.last_error is None
    assert np.isnan(dashboard.snapshot.means).all() or dashboard.snapshot.means.size == 0


def test_the_app_attaches_the_dashboard_once_the_topic_list_shows(
    qtbot, settings, tmp_path, monkeypatch
):
    """As `python main.py` builds it: the topic list first, the dashboard (matplotlib) a
    moment later, evaluating the project already open; then the loaded app is frozen for
    the garbage collector."""
    import judgeapp.app
    from judgeapp.app import build_main_window, ensure_app

    frozen = []
    monkeypatch.setattr(judgeapp.app.gc, "freeze", lambda: frozen.append(True))
    ensure_app()
    project = write_project(tmp_path / "p")
    settings.setValue("assessor", ASSESSOR)
    window, controller = build_main_window(settings, defer_dashboard=True)
    qtbot.addWidget(window)
    window.show()
    settled()
    open_project(controller, str(project.db))
    assert window.topics_view.model.rowCount() == 4
    assert find_dashboard(controller) is None and not frozen
    qtbot.waitUntil(lambda: find_dashboard(controller) is not None, timeout=10_000)
    dashboard = find_dashboard(controller)
    assert frozen == [True]
    window.show_view(dashboard.view)
    qtbot.waitUntil(dashboard.ready, timeout=TIMEOUT)
    assert shown(dashboard) == pytest.approx(oracle_means(project, controller), abs=1e-12)
    window.close()
