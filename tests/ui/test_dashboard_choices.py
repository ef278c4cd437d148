"""An evaluator's afternoon (issue 15): the plots show the best runs by the table's order
and the baseline, and say which; the user picks others; the baseline defaults to the best
run and is remembered per project; each mean has its 95% interval (tooltip, text, exports);
a legend line explains the marks; the comparison panel lists Δ, p and effect size; the
status counts the judgments made."""

from __future__ import annotations

import pytest
from live_project import oracle_ap, oracle_t_marks, qrels_dict
from matplotlib.colors import to_rgba
from PySide6.QtCore import Qt

from judgeapp.services.judging import JudgingService
from judgeapp.services.policy import qrels_rows
from judgeapp.store import Changes
from judgeapp.ui.dashboard.plots import COLOURS
from tests.ui.test_dashboard import ASSESSOR, TIMEOUT, opened  # noqa: F401 (a fixture)
from tests.ui.waiting import open_project, settled


def table_order(dashboard) -> list[str]:
    return dashboard.display.table_order()


def test_plots_show_the_best_runs_by_the_table_and_say_which(qtbot, opened):  # noqa: F811
    project, _window, _controller, dashboard = opened()
    view = dashboard.view
    means = {run: view.model.value(run, "AP") for run in project.runs}
    best = sorted(means, key=lambda r: -means[r])
    # the baseline is the best run (not the first imported), the table best first
    assert dashboard.baseline == best[0]
    assert table_order(dashboard) == best
    view.plot_count.setValue(3)
    assert dashboard.plot_runs == best[:3]
    assert view.pr_plot.runs == tuple(best[:3])
    legend = view.plot_legend.text()
    assert all(run in legend for run in best[:3]) and best[3] not in legend
    assert "the best 3 of 6 runs by AP" in legend
    # sorting the table by another measure: the plots follow it
    dashboard.set_own_window(True)  # the plots in view
    qtbot.waitExposed(dashboard.own_window)
    qtbot.waitUntil(
        lambda: all(p.canvas.isVisible() and p.full_draws and not p.pending for p in view.plots),
        timeout=TIMEOUT,
    )
    draws = {plot.name: plot.full_draws for plot in (view.pr_plot, view.ndcg_plot)}
    rr = {run: view.model.value(run, "RR") for run in project.runs}
    view.table.sortByColumn(
        view.model.measures().index(_measure(view, "RR")) + 1, Qt.SortOrder.DescendingOrder
    )
    by_rr = sorted(rr, key=lambda r: (-rr[r], table_order(dashboard).index(r)))
    expected = by_rr[:3] + ([best[0]] if best[0] not in by_rr[:3] else [])
    assert dashboard.plot_runs == expected
    # other runs, same curves: recoloured and redrawn over the kept background, each run's
    # curve its own values in its legend colour, without a full draw of either figure
    settled()
    snap = dashboard.snapshot
    for plot, values in ((view.pr_plot, snap.iprec_mean), (view.ndcg_plot, snap.ndcg_mean)):
        assert plot.runs == tuple(expected)
        curves = plot.curves.get_segments()
        for i, run in enumerate(expected):
            assert list(curves[i][:, 1]) == list(values[snap.run_names.index(run)])
        assert [tuple(c) for c in plot.curves.get_color()] == [
            to_rgba(COLOURS[i]) for i in range(len(expected))
        ]
        assert plot.full_draws == draws[plot.name] and plot.blits
    assert "by RR" in view.plot_legend.text()
    # the user picks rows: those are plotted, and the legend says so
    dashboard.set_plot_runs(["weak", best[1]])
    assert set(dashboard.plot_runs) == {"weak", best[1]}
    assert "chosen in the table" in view.plot_legend.text()
    assert view.plot_auto.isEnabled()
    view.plot_auto.click()
    settled()
    assert dashboard.plot_runs == expected and not view.plot_auto.isEnabled()


def test_more_runs_chosen_than_the_plots_hold_keeps_the_best(qtbot, opened, monkeypatch):  # noqa: F811
    from judgeapp.ui.dashboard import display

    project, _window, _controller, dashboard = opened()
    monkeypatch.setattr(display, "MAX_PLOT_RUNS", 3)  # as 17 runs against 10 colours
    means = {run: dashboard.view.model.value(run, "AP") for run in project.runs}
    best = sorted(means, key=lambda r: -means[r])
    dashboard.set_plot_runs(list(project.runs))  # in import order: "weak" first
    assert dashboard.plot_runs == best[:3]
    assert "3 of 6" in dashboard.view.plot_legend.text()


def _measure(view, name):
    return next(m for m in view.model.measures() if str(m) == name)


def test_the_baseline_is_remembered_per_project(qtbot, opened, make_window):  # noqa: F811
    _project, window, controller, dashboard = opened()
    combo = dashboard.view.baseline
    combo.setCurrentIndex(combo.findData("run2"))
    settled()
    assert dashboard.baseline == "run2"
    db = controller.workbench.path
    window.close()
    _window2, controller2 = make_window()
    from judgeapp.ui.dashboard import find_dashboard

    dashboard2 = find_dashboard(controller2)
    with qtbot.waitSignal(dashboard2.updated, timeout=TIMEOUT):
        open_project(controller2, db)
    settled()
    assert dashboard2.baseline == "run2"
    assert dashboard2.view.baseline.currentData() == "run2"


def test_intervals_legend_line_and_comparison_panel(qtbot, opened):  # noqa: F811
    from scipy import stats

    project, _window, controller, dashboard = opened()
    store = controller.workbench.store
    alice = JudgingService(store, ASSESSOR)
    for qid in ("1", "2", "3", "4"):
        for doc in project.lists["run5"][qid][:4]:
            alice.record(qid, doc, 1)
    controller.apply_changes(Changes(topics=frozenset({"1", "2", "3", "4"})))
    settled()
    qtbot.waitUntil(lambda: dashboard.ready() and dashboard.marks_ready(), timeout=TIMEOUT)
    view, model = dashboard.view, dashboard.view.model
    qrels = qrels_dict(qrels_rows(store))
    per_topic, _means = oracle_ap(project, qrels)
    qids = sorted(qrels)
    # the 95% interval of each AP mean: scipy's t interval on trec_eval's per-topic AP
    for run in project.runs:
        values = [per_topic[run].get(q, 0.0) for q in qids]
        expected = stats.t.interval(
            0.95, len(values) - 1, loc=sum(values) / len(values), scale=stats.sem(values)
        )
        assert model.interval(run, "AP") == pytest.approx(expected, abs=1e-9)
        tip = model.index(model.row_of(run), 1).data(Qt.ItemDataRole.ToolTipRole)
        assert f"95% interval {expected[0]:.4f} – {expected[1]:.4f}" in tip
    view.show_intervals.setChecked(True)
    settled()
    run = next(iter(project.runs))
    low, high = model.interval(run, "AP")
    text = model.index(model.row_of(run), 1).data()
    assert f"±{(high - low) / 2:.4f}".replace("±0.", "±.") in text  # e.g. "0.3005 ±.0412"
    # what ▲/▼ mean, in words under the table
    base = dashboard.baseline
    assert f"significantly better/worse than {base}" in view.marks_legend.text()
    assert "paired t-test" in view.marks_legend.text()
    # the comparison panel: every other run and measure with Δ, p and d, as the marks have
    # them; filled when its tab comes to the front (out of sight it is not kept sorted)
    panel = view.comparison_model
    assert view.tables.currentWidget() is not view.comparison_table and panel.rowCount() == 0
    view.tables.setCurrentWidget(view.comparison_table)
    marks = oracle_t_marks(per_topic, base, qids)
    rows = {
        (panel.index(r, panel.RUN).data(), panel.index(r, panel.MEASURE).data()): r
        for r in range(panel.rowCount())
    }
    assert {run for run, _m in rows} == set(project.runs) - {base}
    for other, (p, mark) in marks.items():
        if other == base:
            continue
        r = rows[(other, "AP")]
        assert float(panel.index(r, panel.P).data()) == pytest.approx(p, rel=1e-2)
        assert (
            panel.index(r, panel.DELTA).data()
            == f"{model.value(other, 'AP') - model.value(base, 'AP'):+.4f}"
        )
        verdict = panel.index(r, panel.VERDICT).data()
        assert ("better" in verdict, "worse" in verdict) == (mark > 0, mark < 0)
        assert panel.index(r, panel.EFFECT).data().startswith(("+", "-"))
    # judgments made: the sixteen alice holds
    assert "16 judgments made" in view.status.text()


def _bounds_lines(capsys, db) -> dict[tuple[str, str], tuple[str, str]]:
    """(run, trec_eval measure name) -> (low, high) as `evaluate --db --bounds -c` prints."""
    from judgeapp.cli import main

    capsys.readouterr()
    assert main(["evaluate", "--db", str(db), "--bounds", "-c", "-m", "AP", "-m", "P@10"]) == 0
    rows = {}
    for line in capsys.readouterr().out.splitlines()[2:]:
        run, measure, _today, low, high, _proven = line.split("\t")
        rows[run, measure] = (low, high)
    return rows


def test_bounds_box_shows_what_evaluate_bounds_prints_and_follows_judgments(
    qtbot,
    opened,  # noqa: F811
    capsys,
):
    project, _window, controller, dashboard = opened()
    view, model = dashboard.view, dashboard.view.model
    store = controller.workbench.store

    def cell(run: str, measure: str):
        return model.index(model.row_of(run), 1 + [str(m) for m in model.measures()].index(measure))

    run = next(iter(project.runs))
    assert "[" not in cell(run, "AP").data()  # off: the plain value
    with qtbot.waitSignal(dashboard.bounds_updated, timeout=TIMEOUT):
        view.show_bounds.click()
    settled()
    qtbot.waitUntil(dashboard.bounds_ready, timeout=TIMEOUT)
    expected = _bounds_lines(capsys, project.db)
    for name in project.runs:
        for measure in ("AP", "P@10"):
            low, high = expected[name, measure]
            got = model.bounds(name, measure)
            assert got is not None
            assert (f"{got[0]:.4f}", f"{got[1]:.4f}") == (low, high)
            # the cell reads "0.1234", then "[.1000–.5000]" (low–high) on a second line
            compact = [x.removeprefix("0") for x in (low, high)]
            assert cell(name, measure).data().split("\n")[1] == f"[{compact[0]}–{compact[1]}]"
        tip = cell(name, "AP").data(Qt.ItemDataRole.ToolTipRole)
        assert f"unjudged pooled documents are judged: {expected[name, 'AP'][0]}" in tip
        # P@10 counts unjudged documents as not relevant: today's value is its low bound
        assert model.bounds(name, "P@10")[0] == pytest.approx(model.value(name, "P@10"))
    before = model.unjudged
    assert before > 0
    # a judgment: the bounds follow, over one unjudged document less, and never widen
    old = {name: model.bounds(name, "P@10") for name in project.runs}
    pooled = store.pools.doc_ids("pool")["1"]
    judged = {j.doc_id for j in store.judgments.all("1")}
    doc = next(d for d in pooled.tolist() if d not in judged)
    JudgingService(store, ASSESSOR).record("1", doc, 1)
    with qtbot.waitSignal(dashboard.bounds_updated, timeout=TIMEOUT):
        controller.apply_changes(Changes(topics=frozenset({"1"})))
        settled()
    settled()
    qtbot.waitUntil(lambda: dashboard.ready() and dashboard.bounds_ready(), timeout=TIMEOUT)
    assert model.unjudged == before - 1
    for name in project.runs:
        low, high = model.bounds(name, "P@10")
        assert old[name][0] - 1e-12 <= low <= high <= old[name][1] + 1e-12
    assert _bounds_lines(capsys, project.db)[run, "P@10"] == tuple(
        f"{v:.4f}" for v in model.bounds(run, "P@10")
    )
    # off again: the plain values
    view.show_bounds.click()
    settled()
    assert "[" not in cell(run, "AP").data()
