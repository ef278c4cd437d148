"""Pools in the main window: the dialog that builds one (as long work, warning when pooled
documents have no text to judge them by), and the Pool menu that chooses which pool the
project judges."""

from __future__ import annotations

from collections.abc import Callable

from judgeapp.pooling import DEFAULT_ORDER, ORDERS, STRATEGIES
from judgeapp.records import Changes
from judgeapp.services.progress import ProgressFn
from judgeapp.ui.dialogs import PoolDialog
from judgeapp.ui.task_runner import TaskRunner
from judgeapp.ui.window_context import WindowContext


class PoolActions:
    def __init__(
        self, ctx: WindowContext, tasks: TaskRunner, changed: Callable[[Changes], None]
    ) -> None:
        """`changed(changes)`: a pool was built or chosen."""
        self.ctx = ctx
        self.tasks = tasks
        self.changed = changed

    def show_pool_dialog(self) -> PoolDialog | None:
        state = self.ctx.state
        if self.ctx.workbench is None or state is None:
            return None
        runs = state.runs
        taken = {p.name for p in state.pools}
        name = next(f"pool-{i}" for i in range(1, len(taken) + 2) if f"pool-{i}" not in taken)
        dialog = PoolDialog(
            runs,
            STRATEGIES,
            list(ORDERS),
            name,
            self.ctx.window,
            topics=[r.qid for r in state.topic_rows],
            run_topics=state.run_topics,
        )
        dialog.set_order(DEFAULT_ORDER)
        dialog.submitted.connect(lambda: self._on_pool_submitted(dialog))
        self.ctx.dialog = dialog
        dialog.open()
        return dialog

    def _on_pool_submitted(self, dialog: PoolDialog) -> None:
        wb = self.ctx.workbench
        if wb is None:
            return
        name = dialog.name.text().strip()
        runs = dialog.chosen_runs()
        strategy = dialog.strategy.currentData()
        params = dialog.params()
        order = dialog.order.currentData()
        seed = dialog.seed.value()
        qids = dialog.chosen_topics()

        textless: list[tuple[int, int]] = []  # (without text, pooled), found in the worker

        def work(progress: ProgressFn):
            info = wb.build_pool(name, runs, strategy, params, order, seed, progress, qids=qids)
            textless.append(wb.pooling.pooled_without_text(info.name))
            return info

        def done(info) -> None:
            missing, pooled = textless[0] if textless else (0, 0)
            self.ctx.say(
                f"Pool {info.name}: {info.n_docs} documents over {info.n_topics} topics", 8000
            )
            self.changed(Changes(pools=True))
            if missing:
                self.ctx.warn(
                    "Documents without text",
                    f"{missing:,} of the {pooled:,} pooled documents of {info.name} have no "
                    "text in the project: assessors would judge them by their docno alone "
                    "(the judging view asks them to press a grade key twice). Import the "
                    "collection's documents first (Project ▸ Import documents…).",
                )

        self.tasks.run(dialog, work, done, "build pool")

    def rebuild_menu(self) -> None:
        menu = self.ctx.window.pool_menu
        menu.clear()
        state = self.ctx.state
        if self.ctx.workbench is None or state is None:
            menu.setEnabled(False)
            return
        current = state.pool.name if state.pool is not None else None
        for info in state.pools:
            action = menu.addAction(f"{info.name}  ({info.strategy}, {info.judging_order})")
            action.setCheckable(True)
            action.setChecked(info.name == current)
            action.triggered.connect(lambda _=False, n=info.name: self.choose_pool(n))
        menu.setEnabled(bool(menu.actions()))

    def choose_pool(self, name: str) -> None:
        wb = self.ctx.workbench
        if wb is None:
            return
        self.ctx.ops.write(lambda: wb.choose_pool(name), self.changed, what="choosing a pool")
