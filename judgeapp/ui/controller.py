"""The main window's controller: projects, assessors, who sees what, the views' wiring.

Every signal of the main window is connected in `_connect`. Nothing here waits for the
database: every query and write runs through `self.ops` (judgeapp.ui.ops) and its result
comes back to a slot; what the window shows of the project (`WorkbenchState`: the topic
list, the pools, the scale, who judges) is read in one go when the project opens and again
when a change touches it. After every change the controller re-broadcasts the store's
change descriptor as `changes_applied(Changes)`, so each view refreshes only what changed.

The controller is made of parts, each in a module of its own and sharing the project open
through one `WindowContext` (judgeapp.ui.window_context): the topic list (`topic_list`) and
its estimates (`topic_estimates`), imports and exports (`import_export`), pools
(`pool_actions`), the project's scale and stopping target (`project_settings`), long work in
a dialog (`task_runner`), following other processes (`change_following`), undo and redo
(`undo_redo`), and what this computer remembers of projects (`project_memory`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QModelIndex, QObject, QSettings, Qt, QThreadPool, Signal
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QFileDialog, QMessageBox

from judgeapp.pooling.estimate import Estimate
from judgeapp.records import Changes
from judgeapp.services.progress import ProgressFn
from judgeapp.services.rows import natural_key
from judgeapp.services.workbench import Workbench, WorkbenchState, location_shown
from judgeapp.ui.adjudication import AdjudicationController, AdjudicationView
from judgeapp.ui.change_following import ChangeFollower
from judgeapp.ui.dialogs import (
    AssessorDialog,
    ImportDialog,
    PoolDialog,
    ScaleDialog,
    StopTargetDialog,
    TaskDialog,
)
from judgeapp.ui.import_export import ImportExport
from judgeapp.ui.judging_controller import JudgingController
from judgeapp.ui.main_window import MainWindow, fits
from judgeapp.ui.ops import Ops
from judgeapp.ui.plain import plain
from judgeapp.ui.pool_actions import PoolActions
from judgeapp.ui.project_memory import ProjectMemory
from judgeapp.ui.project_opening import Opener, ProjectOpening
from judgeapp.ui.project_settings import ProjectSettings
from judgeapp.ui.save_folders import SaveFolders
from judgeapp.ui.search_view import SearchController
from judgeapp.ui.task_runner import TaskRunner
from judgeapp.ui.team_view import TeamController, TeamView
from judgeapp.ui.topic_estimates import TopicEstimates
from judgeapp.ui.topic_list import TopicList
from judgeapp.ui.undo_redo import UndoRedo
from judgeapp.ui.window_context import WindowContext
from judgeapp.ui.worker import Worker

TOPIC_BESIDE = "judging/topic_beside"  # QSettings key: the topic panel beside the document


class MainController(QObject):
    project_opened = Signal(object)  # the Workbench
    changes_applied = Signal(object)  # Changes: what a committed change touched
    task_finished = Signal(object)  # the Worker, with its result or error, once it is done
    estimates_updated = Signal(object)  # {qid: Estimate} now shown in the topic list
    blind_changed = Signal(bool)  # the current assessor judges blind (or no longer)
    exported = Signal(int)  # qrels written (how many judgments)

    def __init__(
        self,
        window: MainWindow,
        opener: Opener,
        settings: QSettings,
        demo: Callable[[ProgressFn], Path] | None = None,
        thread_pool: QThreadPool | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.window = window
        self.settings = settings
        self.demo = demo  # builds the demo project (None: not available)
        self.ops = Ops(self)  # every query and write of the window (judgeapp.ui.ops)
        self.ops.on_error = self._on_op_failed
        self.ctx = WindowContext(window, self.ops, settings)  # what the parts below share
        self.memory = ProjectMemory(settings)
        self.adjudication: AdjudicationController | None = None  # made when first asked for
        self.team: TeamController | None = None  # the same
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setUndoLimit(0)  # no limit: every judgment of the session
        self.judging = JudgingController(
            window.judging_view, self.undo_stack, parent=self, ops=self.ops
        )
        window.judging_view.watch_activity()
        self.tasks = TaskRunner(
            thread_pool or QThreadPool.globalInstance(), self.task_finished.emit
        )
        # save dialogs open where this project's files were saved last
        self.save_folders = SaveFolders(
            settings, lambda: self.workbench.path if self.workbench is not None else None
        )
        self.projects = ProjectOpening(
            self.ctx, opener, self.memory, self.tasks, demo, self._on_project_loaded
        )
        # the topic list's "estimated missing relevant": computed in a worker of its own
        self.estimator = TopicEstimates(self.ctx, self.estimates_updated.emit, parent=self)
        self.topic_list = TopicList(self.ctx, self.estimator, lambda: self.judging.queue)
        self.files = ImportExport(
            self.ctx, self.tasks, self.save_folders, self._on_imported, self.exported.emit
        )
        self.pools = PoolActions(self.ctx, self.tasks, self.apply_changes)
        self.project_settings = ProjectSettings(self.ctx, self.apply_changes, self.estimator.reset)
        # what other processes (assessors, imports) commit appears here within a moment
        self.follower = ChangeFollower(self.ctx, self.apply_external, parent=self)
        # undo and redo stay within the topic being judged, or say what they undo
        self.undo_redo = UndoRedo(window, self.undo_stack, self.judging, parent=self)
        self.judging.next_topic_finder = self.topic_list.next_topic_after
        self.search = SearchController(
            window.search_view, self.undo_stack, parent=self, ops=self.ops
        )
        self._connect()
        self._rebuild_recent_menu()
        self.window.actions_by_name["open_demo"].setEnabled(demo is not None)

    # -- what the parts share (judgeapp.ui.window_context) ---------------------------------------
    @property
    def workbench(self) -> Workbench | None:
        return self.ctx.workbench

    @workbench.setter
    def workbench(self, workbench: Workbench | None) -> None:
        self.ctx.workbench = workbench

    @property
    def state(self) -> WorkbenchState | None:
        """What the window shows of the project."""
        return self.ctx.state

    @property
    def blind(self) -> bool:
        """The current assessor judges blind (judgeapp.services.team)."""
        return self.ctx.blind

    @property
    def dialog(self) -> TaskDialog | None:
        return self.ctx.dialog

    @property
    def file_dialog(self) -> QFileDialog | None:
        return self.ctx.file_dialog

    @property
    def assessor_dialog(self) -> AssessorDialog | None:
        return self.ctx.assessor_dialog

    @property
    def scale_dialog(self) -> ScaleDialog | None:
        return self.ctx.scale_dialog

    @property
    def stop_dialog(self) -> StopTargetDialog | None:
        return self.ctx.stop_dialog

    @property
    def last_error(self) -> str | None:
        return self.ctx.last_error

    @property
    def last_warning(self) -> str | None:
        return self.ctx.last_warning

    @property
    def worker(self) -> Worker | None:
        """The long work running (an import, a pool, the demo)."""
        return self.tasks.worker

    @property
    def estimates(self) -> dict[str, Estimate]:
        """The estimates shown in the topic list ({qid: Estimate})."""
        return self.estimator.estimates

    # -- wiring ---------------------------------------------------------------------------------
    def _connect(self) -> None:
        a = self.window.actions_by_name
        a["new_project"].triggered.connect(lambda: self.projects.file_dialog("New project", True))
        a["open_project"].triggered.connect(self._on_open_project_triggered)
        a["open_demo"].triggered.connect(self.open_demo)
        for kind in ("topics", "documents", "runs", "qrels"):
            a[f"import_{kind}"].triggered.connect(lambda _=False, k=kind: self.show_import(k))
        a["export_qrels"].triggered.connect(lambda: self.show_export_dialog(mine=False))
        a["export_mine"].triggered.connect(lambda: self.show_export_dialog(mine=True))
        a["quit"].triggered.connect(self.window.close)
        a["choose_assessor"].triggered.connect(self.show_assessor_dialog)
        a["build_pool"].triggered.connect(self.show_pool_dialog)
        a["scale"].triggered.connect(self.show_scale_dialog)
        a["stop_target"].triggered.connect(self.show_stop_dialog)
        a["adjudicate"].triggered.connect(self.show_adjudication)
        a["team"].triggered.connect(self.show_team)
        a["show_topics"].triggered.connect(lambda: self.window.show_view(self.window.topics_view))
        a["show_judging"].triggered.connect(lambda: self.window.show_view(self.window.judging_view))
        a["show_search"].triggered.connect(self.show_search)
        a["shortcuts"].triggered.connect(self.judging._on_help_triggered)
        a["topic_beside"].toggled.connect(self._on_topic_beside_toggled)
        # the layout chosen last (remembered on this computer, for every project)
        a["topic_beside"].setChecked(bool(self.settings.value(TOPIC_BESIDE, False, type=bool)))
        topics = self.window.topics_view
        # the steps of an empty project: each button is its menu item's action
        panel, bar = topics.empty_panel, topics.next_step
        steps = [(b, a[name]) for name, b in panel.buttons.items()]
        steps += [(panel.demo_button, a["open_demo"])]
        steps += [(bar.runs_button, a["import_runs"]), (bar.pool_button, a["build_pool"])]
        for button, action in steps:
            button.clicked.connect(action.trigger)
            action.changed.connect(lambda b=button, act=action: b.setEnabled(act.isEnabled()))
            button.setEnabled(action.isEnabled())
        topics.filter.textChanged.connect(topics.proxy.set_filter_text)
        topics.filter.returnPressed.connect(self._on_topic_filter_return_pressed)
        self.window.tabs.currentChanged.connect(self._on_tab_changed)
        topics.table.activated.connect(self._on_topic_activated)
        topics.table.doubleClicked.connect(self._on_topic_activated)
        topics.judge_button.clicked.connect(self._on_judge_clicked)
        self.judging.changed.connect(self._on_judging_changed)
        self.judging.said.connect(lambda text: self.window.statusBar().showMessage(text, 6000))
        self.judging.topic_opened.connect(self._on_topic_opened)
        self.judging.judgment_recorded.connect(self.search.follow)
        self.search.changed.connect(self.apply_changes)
        self.search.judgment_recorded.connect(self.judging.take_change)
        self.estimates_updated.connect(self.judging.show_estimates)
        self.window.closing.connect(self._on_window_closing)

    # -- projects (judgeapp.ui.project_opening) ---------------------------------------------------
    def open_project(self, db: str, create: bool = False) -> None:
        """Open `db`, with the assessor remembered for it, in a worker; the window shows it
        once it is read (`project_opened`). Nothing at `db`: a new project is created there
        with `create` (New project…), else the user is asked."""
        self.projects.open(db, create)

    def reopen_last(self) -> bool:
        """Open the project used last, if it is still there; True when it opened."""
        return self.projects.reopen_last()

    def open_demo(self) -> None:
        """Build the demo project if needed (in a worker, with progress), then open it."""
        self.projects.open_demo()

    def check_file(self) -> None:
        """Check the project file for damage (SQLite's quick_check), in the background."""
        if self.workbench is not None:
            self.projects.check_file(self.workbench, after_crash=False)

    def _on_open_project_triggered(self) -> None:
        self.projects.file_dialog("Open project", save=False)

    def _on_project_loaded(
        self, db: str, workbench: Workbench, state: WorkbenchState, refused: str | None
    ) -> None:
        self.judging.follow()  # the last judgments' news, in the project they were made in
        self.judging.writer.flush()  # the grades not yet committed, before it closes
        if self.workbench is not None:
            self.estimator.stop()
            self.follower.stop()
            old = self.workbench
            self.ops.write(old.close, what="closing the project")  # after its writes
        self.workbench = workbench
        if not workbench.read_only:  # (opened immutable: no other writer's change is seen)
            self.follower.start(workbench)
        if refused is not None:
            self._ask_assessor_or_project(refused)
        self._remember_project(db)
        self.memory.remember_assessor(workbench.path, state.assessor)
        self.judging.set_workbench(workbench)
        self.search.set_workbench(workbench)
        self.search.set_topic(None, None, None)
        read_only = " (read-only)" if workbench.read_only else ""
        self.window.setWindowTitle(f"{state.title}{read_only} — judgeapp")
        self._show_state(state)
        self.estimator.reset()
        last = state.last_topic
        row = self.window.topics_view.model.row_of(last) if last is not None else None
        pooled = row is not None and self.window.topics_view.model.topic(row).pool_size > 0
        if last is not None and pooled and self.judging.open_topic(last):
            # reopening resumes on the first unjudged document of the last topic
            self.window.topics_view.select_qid(last)
            self.window.show_view(self.window.judging_view)
        else:
            topics = self.window.topics_view
            self.window.show_view(topics)
            if topics.is_empty_shown():  # the first step to take, for the keyboard
                topics.empty_panel.buttons["import_topics"].setFocus()
            else:
                topics.table.setFocus()
        if state.check_due:
            self.projects.check_file(workbench, after_crash=True)
        self.project_opened.emit(workbench)

    def _show_state(self, state: WorkbenchState) -> None:
        """Show what was read of the project: scale, who sees what, topic list, pools."""
        self.ctx.state = state
        self.judging.apply_scale(state.scale, state.guidelines, state.relevant_from)
        self.judging.has_pool = state.pool is not None
        self.search.set_scale(state.scale)
        self.search.set_blind(state.blind)
        if self.adjudication is not None:
            self.adjudication.view.set_scale(state.scale)
        self._apply_visibility(state.blind, state.assignments)
        self.topic_list.show_rows(state.topic_rows)
        wb = self.workbench
        note = ""
        if wb is not None and wb.read_only:
            note = "This project is read-only for you: nothing can be added to it here."
        elif state.blind or (wb is not None and wb.is_member):
            note = "Only the project's owner adds topics, runs and pools to it."
        self.window.topics_view.show_progress_hint(
            len(state.topic_rows), len(state.runs), bool(state.pools), note
        )
        self.pools.rebuild_menu()
        self._update_status()

    def refresh_state(self) -> None:
        """Read again what the window shows of the project (after a change of runs, pools,
        assessors, the scale or the topics)."""
        wb = self.workbench
        if wb is not None:
            self.ops.read(wb.state, self._on_state_read, key="state", lane="rows")

    def _on_state_read(self, state: WorkbenchState) -> None:
        was = self.blind
        self._show_state(state)
        if self.team is not None:
            self.team.persons = list(state.persons)
        if was != self.blind and self.workbench is not None:
            # the open topic as this assessor may now see it
            qid = self.judging.queue.qid if self.judging.queue is not None else None
            self.judging.set_workbench(self.workbench)
            self.judging.apply_scale(state.scale, state.guidelines, state.relevant_from)
            if qid is not None:
                self.judging.open_topic(qid)

    def _remember_project(self, db: str) -> None:
        self.memory.remember_project(db)
        self._rebuild_recent_menu()

    def _rebuild_recent_menu(self) -> None:
        menu = self.window.recent_menu
        menu.clear()
        for path in self.memory.recent():
            action = menu.addAction(location_shown(path))
            action.triggered.connect(lambda _=False, p=path: self.open_project(p))
        menu.setEnabled(bool(self.memory.recent()))

    def set_assessor(self, name: str) -> None:
        """Judge as `name` from now on (created if new), in the writing lane."""
        wb = self.workbench
        if wb is None:
            return

        def work() -> WorkbenchState:
            wb.set_assessor(name)
            return wb.state()

        self.ops.write(
            work,
            lambda state: self._on_assessor_set(wb, name, state),
            failed=lambda exc: self.ctx.error("Cannot judge as this assessor", str(exc)),
            what="choosing the assessor",
        )

    def _on_assessor_set(self, wb: Workbench, name: str, state: WorkbenchState) -> None:
        if wb is not self.workbench:
            return
        self.memory.remember_assessor(wb.path, name)
        qid = self.judging.queue.qid if self.judging.queue is not None else state.last_topic
        mine = state.assignments
        if mine and qid not in mine:
            # not this assessor's topic: the one they worked on last, else their first
            others = qid
            qid = state.last_topic if state.last_topic in mine else min(mine, key=natural_key)
            if others is not None:
                self.window.statusBar().showMessage(
                    f"Topic {others} is not assigned to {name}: their topic {qid} is open.", 10000
                )
        self.judging.set_workbench(wb)
        self._show_state(state)
        self.estimator.reset()
        if qid is not None:
            self.judging.open_topic(qid)

    # -- who sees what ---------------------------------------------------------------------------
    def _apply_visibility(self, blind: bool, assignments: dict[str, bool]) -> None:
        """Blind mode for the current assessor: no dashboard, no estimates, no run names or
        ranks (the judging queue), no building pools or importing runs (both show runs)."""
        view = self.window.topics_view
        view.show_assignments(bool(assignments))
        hidden = (
            "build_pool",
            "import_runs",
            "import_qrels",
            "adjudicate",
            "team",
            "scale",
            "stop_target",  # a blind assessor gets no estimates, so no advice either
        )
        # every judgment would include other assessors' work (and imported qrels)
        for name in (*hidden, "export_qrels"):
            self.window.actions_by_name[name].setEnabled(not blind)
        # a team member's role may not change the project (the server refuses): not offered
        wb = self.workbench
        member = wb is not None and wb.is_member
        # nor may anyone change a project they may only read (a file they cannot write)
        fixed = member or (wb is not None and wb.read_only)
        for name in ("import_topics", "import_documents"):
            self.window.actions_by_name[name].setEnabled(not fixed)
        for name in ("import_runs", "import_qrels", "build_pool"):
            self.window.actions_by_name[name].setEnabled(not blind and not fixed)
        self.window.actions_by_name["scale"].setEnabled(
            not blind and not (wb is not None and wb.read_only)
        )
        if blind:
            for part in (self.adjudication, self.team):
                if part is not None:
                    self.window.remove_view(part.view)
        if blind == self.blind:
            return
        self.ctx.blind = blind
        if blind:
            self.estimator.hide()
        self.blind_changed.emit(blind)

    def _update_status(self) -> None:
        state = self.state
        w = self.window
        if self.workbench is None or state is None:
            for label in (w.project_label, w.assessor_label, w.pool_label):
                label.setText("")
            return
        read_only = self.workbench.read_only
        w.project_label.setText(f"Project: {state.title}" + (" · read-only" if read_only else ""))
        w.project_label.setToolTip(self.workbench.read_only_reason() if read_only else "")
        w.assessor_label.setText(f"Assessor: {state.assessor}")
        info = state.pool
        w.pool_label.setText(
            "No pool yet" if info is None else f"Pool: {info.name} ({info.judging_order} order)"
        )

    # -- the topic list and its estimates (judgeapp.ui.topic_list, .topic_estimates) -------------
    def refresh_topics(self) -> None:
        """Read every topic row again (one grouped query, in a worker)."""
        self.topic_list.refresh()

    def request_estimates(self, qids=None, *, delay: bool = True) -> None:
        """Estimate again the topics `qids` (every judged topic: None), after a pause. A
        blind assessor gets none (an estimate of what is left biases when to stop)."""
        self.estimator.request(qids, delay=delay)

    def estimates_settled(self) -> bool:
        """No estimate running or waiting (screenshots, tests)."""
        return self.estimator.settled()

    def next_topic_after(self, qid: str) -> str | None:
        """The next topic in the topic list's order with documents left to judge."""
        return self.topic_list.next_topic_after(qid)

    def open_topic(self, qid: str) -> None:
        wb = self.workbench
        if wb is not None and wb.judging is None:
            # no assessor (a read-only project that did not know the name asked for)
            self.window.statusBar().showMessage(
                f"Topic {qid} opens once an assessor is chosen: whose judgments to show.", 10000
            )
            self.show_assessor_dialog()
            return
        self.judging.open_topic(qid)
        self.window.show_view(self.window.judging_view)

    def _on_topic_activated(self, index: QModelIndex) -> None:
        qid = index.data(self.window.topics_view.model.QidRole)
        if qid is not None:
            self.open_topic(qid)

    def _on_judge_clicked(self) -> None:
        qid = self.window.topics_view.current_qid()
        if qid is not None:
            self.open_topic(qid)

    def _on_topic_opened(self, qid: str) -> None:
        self.window.topics_view.select_qid(qid)
        pool = self.state.pool.name if self.state is not None and self.state.pool else None
        self.search.set_topic(qid, self.judging.topic, pool, self.window.judging_view.terms.text())

    def show_search(self) -> None:
        """The search of the whole collection, for the topic open in the judging view."""
        self.window.show_view(self.window.search_view)
        self.search.view.query.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.view.query.selectAll()

    def _on_topic_filter_return_pressed(self) -> None:
        """Enter in the filter judges the chosen topic, or the first one the filter shows."""
        qid = self.topic_list.first_shown()
        if qid is None:
            self.window.statusBar().showMessage("No topic matches the filter.", 6000)
            return
        self.open_topic(qid)

    def _on_tab_changed(self, _index: int) -> None:
        # the judging view shown (a tab chosen, Ctrl+2, the dashboard back from its own
        # window): its keys go to the document, not to a field or a hidden widget
        if self.window.tabs.currentWidget() is self.window.judging_view:
            self.window.judging_view.focus_document()

    # -- changes ------------------------------------------------------------------------------------
    def apply_changes(self, changes: Changes) -> None:
        """Refresh what `changes` touched, then tell every other view."""
        wb = self.workbench
        if wb is None or changes.empty:
            return
        wb.invalidate(changes)
        if changes.scale:
            service = wb.judging
            if service is not None:
                self.ops.write(service.refresh_scale, what="reading the scale")
            self.judging.refresh_scale()
        if changes.pools:
            current = self.judging.queue.qid if self.judging.queue is not None else None
            if current is not None:
                self.judging.open_topic(current)
        if changes.topic_list or changes.pools:
            self.estimator.reset()
        elif changes.topics:
            self.request_estimates(changes.topics)
        if self.team is not None and (changes.topics or changes.assessors):
            self.team.schedule()
        if (
            changes.topic_list
            or changes.pools
            or changes.scale
            or changes.assessors
            or (changes.runs)
        ):
            self.refresh_state()  # rows, pools, scale, who sees what: one read
        elif len(changes.topics) > 5:
            self.refresh_topics()  # one grouped query for all rows
        elif changes.topics:
            self.topic_list.refresh_rows(changes.topics)
        self.changes_applied.emit(changes)

    def apply_external(self, changes: Changes) -> None:
        """What another process committed: read again what it touched, then refresh as
        for a change made here."""
        wb = self.workbench
        if wb is None or changes.empty:
            return
        queue = self.judging.queue
        if queue is not None and not changes.pools and queue.qid in changes.topics:
            self.judging.reload_topic()
        self.apply_changes(changes)

    def _on_judging_changed(self, changes: Changes) -> None:
        self.apply_changes(changes)

    # -- adjudication -----------------------------------------------------------------------------
    def show_adjudication(self) -> AdjudicationController | None:
        """The disagreements of the project, for the current assessor to settle (a tab)."""
        wb = self.workbench
        if wb is None or self.blind:
            return None
        if self.adjudication is None:
            view = AdjudicationView()
            self.adjudication = AdjudicationController(
                view, self.undo_stack, parent=self, ops=self.ops
            )
            self.adjudication.changed.connect(self.apply_changes)
        view = self.adjudication.view
        if self.window.tabs.indexOf(view) < 0:
            self.window.add_view("Adjudicate", view)
        self.adjudication.open(wb)
        self.window.show_view(view)
        return self.adjudication

    def _on_topic_beside_toggled(self, beside: bool) -> None:
        self.window.judging_view.set_topic_beside(beside)
        self.settings.setValue(TOPIC_BESIDE, beside)

    def show_team(self) -> TeamController | None:
        """The campaign's progress and agreement, for the owner and evaluators (a tab)."""
        wb = self.workbench
        if wb is None or self.blind:
            return None
        if self.team is None:
            self.team = TeamController(
                TeamView(), parent=self, save_folders=self.save_folders, ops=self.ops
            )
            self.team.changed.connect(self.apply_changes)
        view = self.team.view
        if self.window.tabs.indexOf(view) < 0:
            self.window.add_view("Team", view)
        self.team.open(wb, self.state.persons if self.state is not None else ())
        self.window.show_view(view)
        return self.team

    # -- imports, exports, pools, the project's settings (their own modules) -----------------------
    def _on_imported(self, changes: Changes) -> None:
        self.apply_changes(changes)
        self._update_status()

    def show_import(self, kind: str) -> ImportDialog | None:
        return self.files.show_import(kind)

    def show_export_dialog(self, mine: bool = False) -> QFileDialog | None:
        """Export every effective judgment, or only the current assessor's."""
        return self.files.show_export_dialog(mine)

    def export_qrels(self, path: str, mine: bool = False) -> None:
        """Write the qrels to `path` in a worker (`exported(count)` once written)."""
        self.files.export_qrels(path, mine)

    def show_pool_dialog(self) -> PoolDialog | None:
        return self.pools.show_pool_dialog()

    def choose_pool(self, name: str) -> None:
        self.pools.choose_pool(name)

    def show_scale_dialog(self) -> ScaleDialog | None:
        """The project's scale, definitions and guidelines, for its owner to define."""
        return self.project_settings.show_scale_dialog()

    def show_stop_dialog(self) -> StopTargetDialog | None:
        """The target recall and confidence of the stopping advice, for the project."""
        return self.project_settings.show_stop_dialog()

    # -- project dialogs -----------------------------------------------------------------------------
    def show_assessor_dialog(self) -> AssessorDialog | None:
        wb = self.workbench
        if wb is None:
            return None
        connected = wb.connected_as()
        # a team member's role judges as its own assessor, and no other name is offered
        persons = self.state.persons if self.state is not None else []
        names = [connected] if connected is not None else persons
        dialog = AssessorDialog(names, wb.assessor, self.window, fixed=connected is not None)
        dialog.chosen.connect(self.set_assessor)
        self.ctx.assessor_dialog = dialog
        dialog.open()
        return dialog

    # -- closing ---------------------------------------------------------------------------------------
    def _on_window_closing(self) -> None:
        self.estimator.stop()
        self.follower.stop()
        self.tasks.cancel_and_wait()
        self.settings.setValue("geometry", self.window.saveGeometry())
        self.settings.sync()
        # the judgments on their way are committed first (the writing lane is waited for)
        self.judging.writer.flush()
        self.ops.close()
        if self.team is not None:
            self.team.timer.stop()
        if self.workbench is not None:
            self.workbench.close()
            self.workbench = None

    def restore_geometry(self) -> None:
        """The window's own geometry from its last session, when it still fits the screen
        it is on (a laptop after a large monitor, another scale factor: not); otherwise
        the size that fits (`MainWindow.fit_to_screen`)."""
        window = self.window
        geometry = self.settings.value("geometry")
        if geometry is not None and window.restoreGeometry(geometry):
            screen = window.screen()
            if window.isMaximized() or window.isFullScreen() or screen is None:
                return
            if fits(window.geometry(), screen.availableGeometry()):
                return
        window.fit_to_screen()

    def _on_op_failed(self, what: str, exc: BaseException) -> None:
        """An op that had nothing of its own to say about a failure."""
        self.window.statusBar().showMessage(f"Failed: {what}: {exc}", 10000)
        self.ctx.last_error = f"{what}: {exc}"

    def _ask_assessor_or_project(self, text: str) -> QMessageBox:
        """A project opened without an assessor: say why, and offer to choose one of its
        assessors or another project."""
        box = plain(
            QMessageBox(
                QMessageBox.Icon.Warning, "Opened for reading only", text, parent=self.window
            )
        )
        choose = box.addButton("Choose an assessor…", QMessageBox.ButtonRole.AcceptRole)
        other = box.addButton("Open another project…", QMessageBox.ButtonRole.ActionRole)
        box.addButton("Read only", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(choose)

        def clicked(button) -> None:
            if button is choose:
                self.show_assessor_dialog()
            elif button is other:
                self._on_open_project_triggered()

        box.buttonClicked.connect(clicked)
        box.open()
        self.ctx.last_warning = text
        return box
