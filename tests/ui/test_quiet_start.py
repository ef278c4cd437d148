"""Work nobody waits for starts once the window is quiet (judgeapp.ui.ops.when_quiet), one
job at a time: the pool's text index, the topic list's estimates and the dashboard's full
evaluation begin after the topic's document is painted, not while the GUI thread takes the
topic in and paints it (issue 28: at TREC size on PostgreSQL their Python, sharing the
interpreter lock with the GUI thread, stretched its 20-40 ms of painting into stalls of
50-120 ms)."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtWidgets import QLabel

from judgeapp.ui.dashboard import find_dashboard
from judgeapp.ui.ops import Ops
from tests.ui.test_judging_keys import judging  # noqa: F401 (the fixture)
from tests.ui.waiting import PaintLog, settled

pytestmark = pytest.mark.usefixtures("paint_comes")  # tests/ui/conftest.py


def test_quiet_waits_for_the_foreground_and_its_paint_not_for_the_background(qtbot):
    ops = Ops()
    label = QLabel("before")
    qtbot.addWidget(label)
    label.show()
    qtbot.waitExposed(label)
    log: list[str] = []
    painted = PaintLog(log)
    label.installEventFilter(painted)
    release_read, release_background = threading.Event(), threading.Event()
    # a background lane's job holds nothing up
    ops.read(lambda: release_background.wait(10), lane="dashboard", what="background")

    def taken_in(_result) -> None:  # the result is shown: its paint is awaited
        log.append("taken in")
        label.setText("after")
        ops.after_paint(label, lambda: log.append("after its paint"))

    ops.read(lambda: release_read.wait(10), taken_in, what="foreground")
    ops.when_quiet(lambda: log.append("quiet 1"))
    ops.when_quiet(lambda: log.append("quiet 2"))
    qtbot.wait(50)
    assert "quiet 1" not in log and not ops.idle(background=False)
    release_read.set()
    qtbot.waitUntil(lambda: "quiet 2" in log, timeout=10_000)
    start = log.index("taken in")
    assert log[start:].index("painted") < log[start:].index("quiet 1")
    assert log.index("after its paint") < log.index("quiet 1") < log.index("quiet 2")
    assert not release_background.is_set()  # the background job still runs
    # quiet now: a callback runs at the next turn of the event loop, not inside the call
    ops.when_quiet(lambda: log.append("quiet 3"))
    assert log[-1] == "quiet 2"
    qtbot.waitUntil(lambda: log[-1] == "quiet 3", timeout=10_000)

    # one at a time: what a callback starts, even in a background lane, is done before the
    # next callback runs
    release_first = threading.Event()
    ops.when_quiet(
        lambda: ops.read(
            lambda: release_first.wait(10),
            lambda _r: log.append("first's job done"),
            lane="estimates",
        )
    )
    ops.when_quiet(lambda: log.append("second"))
    qtbot.wait(100)
    assert "second" not in log
    release_first.set()
    qtbot.waitUntil(lambda: "second" in log, timeout=10_000)
    assert log.index("first's job done") < log.index("second")

    # a callback that fails is reported, and the ones after it still run
    def fails() -> None:
        raise RuntimeError("a callback that fails")

    with qtbot.capture_exceptions() as raised:
        ops.when_quiet(fails)
        ops.when_quiet(lambda: log.append("after a failure"))
        qtbot.waitUntil(lambda: log[-1] == "after a failure", timeout=10_000)
    assert [str(exc[1]) for exc in raised] == ["a callback that fails"]
    release_background.set()
    qtbot.waitUntil(lambda: ops.idle(), timeout=10_000)
    # a window that closes runs no callback any more
    ops.read(lambda: release_read.wait(10), what="foreground")
    ops.when_quiet(lambda: log.append("after the close"))
    ops.close()
    qtbot.wait(50)
    assert "after the close" not in log


def test_a_topics_text_index_and_the_dashboards_evaluation_start_after_its_frame(
    qtbot,
    judging,  # noqa: F811
):
    window, controller = judging
    ops = controller.judging.ops
    dashboard = find_dashboard(controller)
    log: list = []
    real_read = ops.read

    def logged_read(fn, done=None, **kw):
        name = kw.get("key") or kw.get("lane") or kw.get("what")
        log.append(("read", name))

        def logged_done(result):
            log.append(("done", name))
            if done is not None:
                done(result)

        return real_read(fn, logged_done, **kw)

    ops.read = logged_read  # type: ignore[method-assign]
    viewport = window.judging_view.viewer.text.viewport()
    painted = PaintLog(log)
    viewport.installEventFilter(painted)
    controller.judging.document_shown.connect(lambda doc: log.append(("shown", doc)))
    try:
        for qid in ("2", "3"):
            log.clear()
            # the project opened again (a full evaluation) and a topic opened
            dashboard.reload()
            controller.open_topic(qid)
            settled()
            shown = next(i for i, e in enumerate(log) if isinstance(e, tuple) and e[0] == "shown")
            frame = log.index("painted", shown)
            texts = log.index(("read", "texts"))
            evaluation = log.index(("read", "dashboard"))
            assert frame < texts and frame < evaluation, log
            # one after the other: the second starts once the first has been taken in
            first, second = sorted(
                [("texts", texts), ("dashboard", evaluation)], key=lambda x: x[1]
            )
            assert log.index(("done", first[0])) < second[1], log
            assert log.count(("read", "texts")) == 1
            assert controller.judging.texts_loaded and controller.judging.pool_index is not None
    finally:
        ops.read = real_read  # type: ignore[method-assign]
        viewport.removeEventFilter(painted)
