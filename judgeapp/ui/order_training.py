"""The model of a judging order that learns from the judgments (cal): refitted in a lane
of its own, one fit at a time, so that a grade key never waits for a fit; the order
proposes by the newest model ready. A fit for a topic no longer open is dropped; the order
itself refuses one fitted for judgments since undone or re-graded."""

from __future__ import annotations

from collections.abc import Callable

from judgeapp.lasting import import_for_good
from judgeapp.services.queue import JudgingQueue
from judgeapp.ui.ops import Ops
from judgeapp.ui.worker import Worker


class OrderTraining:
    def __init__(
        self,
        ops: Ops,
        queue: Callable[[], JudgingQueue | None],
        notice: Callable[[str], None],
    ) -> None:
        """`queue()`: the open topic's queue; `notice(text)`: said under the document."""
        self.ops = ops
        self.queue = queue
        self.notice = notice
        self.worker: Worker | None = None  # the fit running
        self.failed = False  # no retry until the judgments change

    def train(self, changed: bool = False) -> None:
        """Start the next fit of the open order's model in the worker, if one is due and
        none is running (when it ends, the next due fit starts). `changed`: the judgments
        or the topic changed (a fit that failed is tried again only then)."""
        if changed:
            self.failed = False
        queue = self.queue()
        if self.worker is not None or queue is None or self.failed:
            return
        job = queue.order.training()
        if job is None:
            return
        order = queue.order

        def fit():
            # scikit-learn, imported the first time here: frozen (judgeapp.lasting)
            import_for_good("sklearn.linear_model")
            return job.fit()

        self.worker = self.ops.read(
            fit,
            lambda model: self._on_succeeded(order, model),
            failed=self._on_failed,
            lane="training",
            what="fitting the judging order's model",
            finished=self._on_finished,
        )

    def _on_succeeded(self, order, model) -> None:
        queue = self.queue()
        if queue is not None and queue.order is order:
            order.use_model(model)

    def _on_failed(self, exc: BaseException) -> None:
        # the order goes on with the model it has; say why it stopped learning
        self.failed = True
        self.notice(f"The judging order could not learn from the last judgments: {exc}")

    def _on_finished(self) -> None:
        self.worker = None
        self.train()
