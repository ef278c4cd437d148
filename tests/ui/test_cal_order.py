"""The `cal` judging order in the window: its model is refitted in the judging view's
worker as grades are given (never on the GUI thread), and the order proposes by the newest
model that is ready; an undo starts the learning again from the judgments that remain."""

from __future__ import annotations

from judgeapp.store import Changes
from tests.ui.test_judging_keys import ASSESSOR, press
from tests.ui.waiting import open_project, settled


def test_grades_refit_the_cal_model_in_the_worker(qtbot, make_window, tmp_path):
    from live_project import write_project

    from tests.ui.test_main_window import choose_assessor

    project = write_project(tmp_path / "p")
    _window, controller = make_window()
    open_project(controller, str(project.db))
    choose_assessor(controller, ASSESSOR)
    controller.workbench.build_pool("pool", list(project.runs), "depth", {"depth": 10}, "cal")
    controller.apply_changes(Changes(pools=True))
    settled()
    qtbot.waitUntil(controller.estimates_settled, timeout=30_000)
    controller.open_topic("1")
    settled()
    judge = controller.judging
    order = judge.queue.order
    assert order.name == "cal" and order.background
    qtbot.waitUntil(lambda: judge.training is None)
    assert order.model is not None and order.model.learned == 0  # the statement alone
    shown = []
    for key in ("1", "0", "0"):
        shown.append(judge.current)
        press(qtbot, key)
        # the next document is on screen at once, chosen by the model ready at the time
        assert judge.current not in shown and judge.current is not None
    qtbot.waitUntil(lambda: judge.training is None and order.model.learned == 3)
    assert order.judged == {shown[0]: (1, True), shown[1]: (0, False), shown[2]: (0, False)}
    # with the newest model in use the proposal is the best unjudged by its scores
    assert judge.queue.order.next_doc() == order.upcoming(1)[0]
    press(qtbot, "Ctrl+Z")
    qtbot.waitUntil(lambda: judge.training is None and order.model.learned == 2)
    assert shown[2] not in order.judged


def test_the_pool_dialog_offers_the_new_orders(qtbot, make_window, tmp_path):
    from live_project import write_project

    project = write_project(tmp_path / "p")
    _window, controller = make_window()
    open_project(controller, str(project.db))
    dialog = controller.show_pool_dialog()
    labels = {
        dialog.order.itemData(i): dialog.order.itemText(i) for i in range(dialog.order.count())
    }
    assert labels["maxmean-shared"] == "MaxMean bandit, evidence shared across runs"
    assert labels["ridge-fusion"] == "Rank fusion, run weights learned from the judgments"
    assert labels["cal"] == "Learns from the judged documents' text (CAL)"
    dialog.order.setCurrentIndex(dialog.order.findData("cal"))
    settled()
    dialog.name.setText("by-text")
    dialog.submitted.emit()
    qtbot.waitUntil(
        lambda: any(p.name == "by-text" for p in controller.workbench.pools()), timeout=30_000
    )
    assert controller.workbench.store.pools.get("by-text").judging_order == "cal"
