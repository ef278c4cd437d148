"""The judging view's estimate line: the relevant documents a topic still holds, whether the
estimator vouches for the interval, and the stopping advice, as the window shows them
(screenshots written beside the test's files)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from tests.ui.test_main_window import ASSESSOR, choose_assessor, key
from tests.ui.waiting import open_project, settled


def judged_project(qtbot, tmp_path, make_window, order: str):
    """The small generated project open in the window, assessor alice, a depth-10 pool
    judged in `order` announced to the window, topic 1 open."""
    from live_project import write_project

    from judgeapp.store import Changes

    project = write_project(tmp_path / "p")
    window, controller = make_window()
    open_project(controller, project.db)  # read in a worker (judgeapp.ui.ops)
    choose_assessor(controller, ASSESSOR)
    controller.workbench.build_pool(
        "pool", list(project.runs), "depth", {"depth": 10}, order, seed=7
    )
    controller.apply_changes(Changes(pools=True))
    settled()  # the window reads the new pool
    qtbot.waitUntil(controller.estimates_settled, timeout=30_000)
    controller.open_topic("1")
    settled()  # the topic's queue and first document are on screen
    truth: dict[tuple[str, str], int] = {}
    for line in project.qrels.read_text().splitlines():
        qid, _, docno, grade = line.split()
        truth[qid, docno] = int(grade)
    return window, controller, truth


def judge(qtbot, controller, truth, count: int) -> None:
    """Grade the next `count` documents the order proposes as the source qrels do (grade 0
    for a document they lack)."""
    judging = controller.judging
    for _ in range(count):
        doc = judging.current
        assert doc is not None
        docno = judging.queue.item(doc).docno
        key(qtbot, str(truth.get(("1", docno), 0)))


def settled_estimate(qtbot, controller, judged: int):
    qtbot.waitUntil(
        lambda: "1" in controller.estimates and controller.estimates["1"].judged == judged,
        timeout=30_000,
    )
    qtbot.waitUntil(controller.estimates_settled, timeout=30_000)
    return controller.estimates["1"]


def expected_estimate(controller):
    """The store's estimate, computed apart from the window's worker."""
    from judgeapp.services.pools import PoolService
    from judgeapp.services.queue import RELEVANT_FROM

    wb = controller.workbench
    return PoolService(wb.store).estimate_relevant(
        "pool", "1", assessors=[ASSESSOR], min_grade=RELEVANT_FROM, stop=wb.stop_target()
    )


def test_the_judging_view_tells_when_a_topic_may_stop(qtbot, tmp_path, make_window):
    """A random order judged near the end of the pool: the line says how many relevant
    documents are left (95% interval) and that the topic may stop, with the rule in its
    tooltip; before, it said to judge on and how many judgments it expects that to take."""
    from judgeapp.ui.stopping_advice import estimate_text

    window, controller, truth = judged_project(qtbot, tmp_path, make_window, "blind")
    view = controller.judging.view
    assert not view.estimate_label.isVisible()  # nothing judged: nothing to estimate
    pooled = controller.judging.queue.counts()[0]
    judge(qtbot, controller, truth, 6)
    early = settled_estimate(qtbot, controller, 6)
    assert early.advice is not None and not early.advice.stop
    text, detail = estimate_text(expected_estimate(controller))
    assert view.estimate_label.text() == text
    assert text.startswith("After 6 judged: about ")
    assert "Judge on: about " in text and "more judgments until 95% confident that 80%" in text
    judge(qtbot, controller, truth, pooled - 7)
    late = settled_estimate(qtbot, controller, pooled - 1)
    assert late.advice is not None and late.advice.stop and late.calibrated
    text, detail = estimate_text(expected_estimate(controller))
    assert view.estimate_label.text() == text and view.estimate_label.toolTip() == detail
    assert "Stop: 95% confident that 80% of the relevant are found." in text
    assert "Stopping rule: stop once found / (found + U) >= 80%" in detail
    assert "Exact for a random order." in detail
    assert view.estimate_label.isVisible()
    window.grab().save(str(tmp_path / "stop-advice.png"))
    view.grab().save(str(tmp_path / "stop-advice-view.png"))


def test_the_judging_view_says_when_it_cannot_vouch_for_the_estimate(qtbot, tmp_path, make_window):
    """An adaptive order on a pool smaller than any the estimator was checked on: the line
    says the interval is uncalibrated, the tooltip says why, and the interval is the
    conservative one (from nothing left up)."""
    from judgeapp.ui.stopping_advice import estimate_text

    window, controller, truth = judged_project(qtbot, tmp_path, make_window, "mtf")
    view = controller.judging.view
    pooled = controller.judging.queue.counts()[0]
    judge(qtbot, controller, truth, 10)
    estimate = settled_estimate(qtbot, controller, 10)
    assert not estimate.calibrated and estimate.low == estimate.found
    text, detail = estimate_text(expected_estimate(controller))
    assert view.estimate_label.text() == text and view.estimate_label.toolTip() == detail
    assert " (uncalibrated, conservative)." in text
    assert f"Uncalibrated: a pool of {pooled} documents (checked: " in detail
    assert "are found (conservative bound)." in text  # the advice says so too
    assert f"Conservative bound: a pool of {pooled} documents" in detail
    window.grab().save(str(tmp_path / "uncalibrated.png"))
    view.grab().save(str(tmp_path / "uncalibrated-view.png"))


def test_the_stopping_advice_s_target_is_set_in_a_dialog(qtbot, tmp_path, make_window):
    """Judging > Stopping advice…: the dialog shows the project's target (80%, 95%); set to
    90% recall at 99% confidence, the project keeps them (a new workbench on the file reads
    them) and the estimate line's advice is redone for them."""
    from judgeapp.services.workbench import Workbench
    from judgeapp.store import Store

    window, controller, truth = judged_project(qtbot, tmp_path, make_window, "blind")
    judge(qtbot, controller, truth, 6)
    assert settled_estimate(qtbot, controller, 6).advice.target == 0.8
    window.actions_by_name["stop_target"].trigger()
    dialog = controller.stop_dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(dialog.isEnabled)  # the project's target is read in a worker
    assert (dialog.target.value(), dialog.confidence.value()) == (80.0, 95.0)
    dialog.target.setValue(90.0)
    dialog.confidence.setValue(99.0)
    dialog.grab().save(str(tmp_path / "stop-target-dialog.png"))
    qtbot.mouseClick(
        dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok),
        Qt.MouseButton.LeftButton,
    )
    assert not dialog.isVisible()
    qtbot.waitUntil(lambda: controller.workbench.stop_target() == (0.9, 0.99))  # a worker writes
    qtbot.waitUntil(
        lambda: (
            "1" in controller.estimates
            and controller.estimates["1"].advice is not None
            and controller.estimates["1"].advice.target == 0.9
        ),
        timeout=30_000,
    )
    qtbot.waitUntil(controller.estimates_settled, timeout=30_000)
    assert "until 99% confident that 90% are found" in controller.judging.view.estimate_label.text()
    window.grab().save(str(tmp_path / "stop-target-window.png"))
    with Store.open(controller.workbench.store.url) as store:
        assert Workbench(store).stop_target() == (0.9, 0.99)
    with pytest.raises(ValueError, match="target recall"):
        controller.workbench.set_stop_target(1.5, 0.95)


@pytest.fixture(autouse=True)
def _keep_screenshots(tmp_path, request):
    """With JUDGEAPP_KEEP_SCREENSHOTS=DIR the pictures are copied there to be looked at."""
    import os
    import shutil

    yield
    folder = os.environ.get("JUDGEAPP_KEEP_SCREENSHOTS")
    if folder:
        for picture in tmp_path.glob("*.png"):
            shutil.copy(picture, os.path.join(folder, f"{request.node.name}-{picture.name}"))
