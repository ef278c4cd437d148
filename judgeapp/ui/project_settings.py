"""The project's settings its owner defines from the main window: the grading scale (its
grades, definitions and guidelines) and the target of the stopping advice (recall and
confidence). Neither is offered to an assessor judging blind."""

from __future__ import annotations

from collections.abc import Callable

from judgeapp.pooling.estimate import STOP_CONFIDENCE, STOP_TARGET
from judgeapp.records import Changes
from judgeapp.services import scale
from judgeapp.ui.dialogs import ScaleDialog, StopTargetDialog
from judgeapp.ui.window_context import WindowContext


class ProjectSettings:
    def __init__(
        self,
        ctx: WindowContext,
        changed: Callable[[Changes], None],
        target_changed: Callable[[], None],
    ) -> None:
        """`changed(changes)`: the scale was saved; `target_changed()`: the stopping
        advice's target was (the advice shown was for the old one)."""
        self.ctx = ctx
        self.changed = changed
        self.target_changed = target_changed

    # -- the scale ------------------------------------------------------------------------------
    def show_scale_dialog(self) -> ScaleDialog | None:
        """The project's scale, definitions and guidelines, for its owner to define."""
        state = self.ctx.state
        if self.ctx.workbench is None or self.ctx.blind or state is None:
            return None
        spec = scale.ScaleSpec(tuple(state.scale), state.relevant_from, state.guidelines)
        dialog = ScaleDialog(spec, scale.PRESETS, self.ctx.window)
        dialog.chosen.connect(lambda spec: self._on_scale_chosen(dialog, spec))
        self.ctx.scale_dialog = dialog
        dialog.open()
        return dialog

    def _on_scale_chosen(self, dialog: ScaleDialog, spec: scale.ScaleSpec) -> None:
        wb = self.ctx.workbench
        if wb is None:
            return

        def saved(changes: Changes) -> None:
            dialog.accept()
            self.changed(changes)
            self.ctx.say("The scale is saved; every window shows it.", 8000)

        # refused: people's grades dropped, a database refusing the owner's change (an
        # assessor's connection), ...
        self.ctx.ops.write(
            lambda: wb.apply_scale(spec),
            saved,
            failed=lambda exc: dialog.show_error(str(exc)),
            what="saving the scale",
        )

    # -- the stopping advice's target -----------------------------------------------------------
    def show_stop_dialog(self) -> StopTargetDialog | None:
        """The target recall and confidence of the stopping advice, for the project."""
        wb = self.ctx.workbench
        if wb is None or self.ctx.blind:
            return None
        dialog = StopTargetDialog(STOP_TARGET, STOP_CONFIDENCE, self.ctx.window)
        dialog.setEnabled(False)  # until the project's target is read (in a worker)

        def show(target: tuple[float, float]) -> None:
            dialog.set_target(*target)
            dialog.setEnabled(True)

        self.ctx.ops.read(wb.stop_target, show, key="stop target")
        dialog.chosen.connect(self._on_stop_target_chosen)
        self.ctx.stop_dialog = dialog
        dialog.open()
        return dialog

    def _on_stop_target_chosen(self, target: float, confidence: float) -> None:
        wb = self.ctx.workbench
        if wb is None:
            return

        def saved(_result: object) -> None:
            self.target_changed()
            self.ctx.say(f"Stopping advice: {target:.0%} recall, {confidence:.1%} confident.", 8000)

        self.ctx.ops.write(
            lambda: wb.set_stop_target(target, confidence),
            saved,
            # a database refusing the change (an assessor's connection)
            failed=lambda exc: self.ctx.warn("Stopping advice", str(exc)),
            what="saving the stopping advice's target",
        )
