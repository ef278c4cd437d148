"""Following other processes: what other assessors and imports commit to the project open
in the window appears here within a moment. A `ChangeFeed` of the project is polled every
`FEED_MS` in a lane of its own (one poll at a time), and what it finds is handed on as
`Changes`, as if the change had been made in this window."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from judgeapp.records import Changes
from judgeapp.services.workbench import ChangeFeed, Workbench
from judgeapp.ui.window_context import WindowContext

FEED_MS = 300  # how often the window asks whether other processes changed the project


class ChangeFollower(QObject):
    def __init__(
        self,
        ctx: WindowContext,
        found: Callable[[Changes], None],
        parent: QObject | None = None,
    ) -> None:
        """`found(changes)`: what another process committed to the project open now."""
        super().__init__(parent)
        self.ctx = ctx
        self.found = found
        self.feed: ChangeFeed | None = None
        self.polling = False  # a poll of the feed is running
        self.timer = QTimer(self)
        self.timer.setInterval(FEED_MS)
        self.timer.timeout.connect(self._on_timer_timeout)

    def start(self, workbench: Workbench) -> None:
        ops = self.ctx.ops

        def started(feed: ChangeFeed) -> None:
            if workbench is self.ctx.workbench:
                self.feed = feed
                self.timer.start()
            else:
                ops.read(feed.close, lane="feed", what="closing the feed")

        def failed(exc: BaseException) -> None:  # a server that refuses a second connection
            self.ctx.say(f"Not following other writers: {exc}", 10000)

        ops.read(workbench.change_feed, started, failed=failed, lane="feed")

    def stop(self) -> None:
        self.timer.stop()
        if self.feed is not None:
            feed, self.feed = self.feed, None
            self.ctx.ops.read(feed.close, lane="feed", what="closing the feed")  # after its poll
        self.polling = False

    def _on_timer_timeout(self) -> None:
        feed = self.feed
        if feed is None or self.polling:
            return
        self.polling = True

        def polled(changes: Changes | None) -> None:
            self.polling = False
            if changes is not None and feed is self.feed:
                self.found(changes)

        def failed(exc: BaseException) -> None:
            # the file moved away, the server went down: say so once
            self.polling = False
            if feed is self.feed:
                self.stop()
                self.ctx.say(f"Stopped following other writers: {exc}")

        self.ctx.ops.read(feed.poll, polled, failed=failed, lane="feed", what="following others")
