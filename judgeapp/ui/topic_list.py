"""The topic list of the main window: its rows (read in one grouped query, in a worker, or
for the open topic from its judging queue in memory), the summary line under it, the box
that hides the topics a pool leaves out, and which topic comes next when one is done."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

from judgeapp.services.queue import JudgingQueue
from judgeapp.services.rows import TopicRow
from judgeapp.ui.topic_estimates import TopicEstimates
from judgeapp.ui.window_context import WindowContext


class TopicList:
    def __init__(
        self,
        ctx: WindowContext,
        estimates: TopicEstimates,
        open_queue: Callable[[], JudgingQueue | None],
    ) -> None:
        """`open_queue()`: the judging queue of the topic open in the judging view."""
        self.ctx = ctx
        self.estimates = estimates
        self.open_queue = open_queue
        self.view = ctx.window.topics_view
        self.had_pool = False  # the list had a pool to show (pooled topics only)
        self.view.pooled_only.toggled.connect(self._on_pooled_only_toggled)

    def refresh(self) -> None:
        """Read every topic row again (one grouped query, in a worker)."""
        wb = self.ctx.workbench
        if wb is None:
            self.show_rows([])
            return
        self.ctx.ops.read(wb.topic_rows, self.show_rows, key="topic rows", lane="rows")

    def show_rows(self, rows: list[TopicRow]) -> None:
        view = self.view
        view.model.set_rows([self.estimates.with_estimate(r) for r in rows])
        view.show_estimates(view.model.show_estimates)
        view.show_imported(view.model.has_imported())
        # once a pool exists, the topics it leaves out are hidden (a box shows them again)
        has_pool = any(r.pool_size for r in rows)
        view.pooled_only.setEnabled(has_pool)
        if has_pool != self.had_pool:
            self.had_pool = has_pool
            view.pooled_only.setChecked(has_pool)
        self.update_summary()

    def refresh_rows(self, qids: Iterable[str]) -> None:
        """The rows of `qids` again: the open topic's from its queue (in memory: no query
        per key), the others read in a worker."""
        model = self.view.model
        queue = self.open_queue()
        others = []
        for qid in qids:
            row = model.row_of(qid)
            if row is None:
                continue
            old = model.topic(row)
            if queue is not None and queue.qid == qid:
                pooled, judged, relevant = queue.counts()
                new = dataclasses.replace(old, pool_size=pooled, judged=judged, relevant=relevant)
                model.update_row(self.estimates.with_estimate(new))
            else:
                others.append(qid)
        self.update_summary()
        wb = self.ctx.workbench
        if others and wb is not None:
            self.ctx.ops.read(lambda: wb.topic_rows(others), self._update_rows, lane="rows")

    def _update_rows(self, rows: list[TopicRow]) -> None:
        model = self.view.model
        for row in rows:
            if model.row_of(row.qid) is not None:
                model.update_row(self.estimates.with_estimate(row))
        self.update_summary()

    def update_summary(self) -> None:
        view = self.view
        rows = view.model.rows()
        pooled = sum(r.pool_size for r in rows)
        judged = sum(r.judged for r in rows)
        relevant = sum(r.relevant for r in rows)
        with_pool = sum(1 for r in rows if r.pool_size)
        topics = f"{len(rows)} topic{'s' * (len(rows) != 1)}"
        if with_pool < len(rows) and pooled:
            topics += f" ({with_pool} with a pool"
            topics += ", the others hidden)" if view.proxy.pooled_only else ")"
        text = f"{topics} · {pooled} pooled · {judged} judged · {relevant} relevant"
        view.summary.setText(text)

    def _on_pooled_only_toggled(self, on: bool) -> None:
        self.view.proxy.set_pooled_only(on)
        self.update_summary()

    def first_shown(self) -> str | None:
        """The topic chosen in the list, else the first one the filter shows."""
        view = self.view
        qid = view.current_qid()
        if qid is None and view.proxy.rowCount():
            qid = view.proxy.index(0, 0).data(view.model.QidRole)
        return qid

    def next_topic_after(self, qid: str) -> str | None:
        """The next topic in the list's order (the assessor's own topics first when they
        have some) with pooled documents they have not judged."""
        view = self.view
        order = [
            view.proxy.index(r, 0).data(view.model.QidRole) for r in range(view.proxy.rowCount())
        ]
        if qid in order:  # after it, round to the start
            i = order.index(qid)
            order = order[i + 1 :] + order[:i]
        model = view.model
        rows = [model.topic(r) for q in order if (r := model.row_of(q)) is not None]
        open_ = [r for r in rows if r.pool_size > r.judged and r.qid != qid]
        mine = [r for r in open_ if r.assigned]
        chosen = (mine or open_)[:1]
        return chosen[0].qid if chosen else None
