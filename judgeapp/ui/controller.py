"""The main window's controller: projects, assessors, imports, pools, export, topic list.

Every signal of the main window is connected in `_connect` and handled by an `_on_...`
slot. Nothing here waits for the database: every query and write runs through `self.ops`
(judgeapp.ui.ops) and its result comes back to a slot; what the window shows of the project
(`WorkbenchState`: the topic list, the pools, the scale, who judges) is read in one go when
the project opens and again when a change touches it. Long work (imports, pooling, building
the demo) runs in a `Worker` whose dialog shows progress and can cancel. After every change
the controller re-broadcasts the store's change descriptor as `changes_applied(Changes)`,
so each view refreshes only what changed.
"""

from __future__ import annotations

import dataclasses
import getpass
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QSettings, Qt, QThreadPool, QTimer, Signal
from PySide6.QtGui import QAction, QUndoStack
from PySide6.QtWidgets import QFileDialog, QMessageBox

from judgeapp.errors import NoProject
from judgeapp.lasting import import_for_good
from judgeapp.pooling.estimate import STOP_CONFIDENCE, STOP_TARGET, Estimate
from judgeapp.records import Changes
from judgeapp.services.progress import Cancelled, ProgressFn
from judgeapp.services.rows import TopicRow, natural_key
from judgeapp.services.workbench import ChangeFeed, Workbench, WorkbenchState, location_shown
from judgeapp.ui.adjudication import AdjudicationController, AdjudicationView
from judgeapp.ui.dialogs import (
    AssessorDialog,
    ImportDialog,
    PoolDialog,
    ScaleDialog,
    StopTargetDialog,
    TaskDialog,
)
from judgeapp.ui.judging_controller import JudgingController
from judgeapp.ui.main_window import MainWindow, fits
from judgeapp.ui.ops import Ops
from judgeapp.ui.plain import plain
from judgeapp.ui.save_folders import SaveFolders
from judgeapp.ui.search_view import SearchController
from judgeapp.ui.team_view import TeamController, TeamView
from judgeapp.ui.worker import Worker

MAX_RECENT = 8
FEED_MS = 300  # how often the window asks whether other processes changed the project
ESTIMATE_DELAY_MS = 800  # the topic list's estimates wait for a pause in the judging
TOPIC_BESIDE = "judging/topic_beside"  # QSettings key: the topic panel beside the document
Opener = Callable[[str, bool], Workbench]  # (path or URL, create if nothing is there)


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
        self.opener = opener
        self.settings = settings
        self.demo = demo
        self.thread_pool = thread_pool or QThreadPool.globalInstance()
        self.ops = Ops(self)  # every query and write of the window (judgeapp.ui.ops)
        self.ops.on_error = self._on_op_failed
        self.workbench: Workbench | None = None
        self.state: WorkbenchState | None = None  # what the window shows of the project
        self.opening: str | None = None  # a project being opened
        self.blind = False  # the current assessor judges blind (judgeapp.services.team)
        self.adjudication: AdjudicationController | None = None  # made when first asked for
        self.team: TeamController | None = None  # the same
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setUndoLimit(0)  # no limit: every judgment of the session
        self.judging = JudgingController(
            window.judging_view, self.undo_stack, parent=self, ops=self.ops
        )
        window.judging_view.watch_activity()
        self.worker: Worker | None = None
        self.dialog: TaskDialog | None = None
        self.file_dialog: QFileDialog | None = None
        self.assessor_dialog: AssessorDialog | None = None
        self.scale_dialog: ScaleDialog | None = None
        self.stop_dialog: StopTargetDialog | None = None
        # save dialogs open where this project's files were saved last
        self.save_folders = SaveFolders(
            settings, lambda: self.workbench.path if self.workbench is not None else None
        )
        self.last_error: str | None = None
        self.last_warning: str | None = None
        self.last_check: list[str] | None = None  # what the last check of the file found
        self._had_pool = False  # the topic list had a pool to show (pooled topics only)
        # the topic list's "estimated missing relevant": computed in a worker of its own
        self.estimates: dict[str, Estimate] = {}
        self._estimate_pending: set[str] | None = set()  # None: every judged topic
        self._estimate_worker: Worker | None = None
        self._estimate_generation = 0
        self.estimate_timer = QTimer(self)
        self.estimate_timer.setSingleShot(True)
        self.estimate_timer.setInterval(ESTIMATE_DELAY_MS)
        self.estimate_timer.timeout.connect(self._run_estimates)
        # what other processes (assessors, imports) commit appears here within a moment
        self.feed: ChangeFeed | None = None
        self._polling = False  # a poll of the feed is running
        self.feed_timer = QTimer(self)
        self.feed_timer.setInterval(FEED_MS)
        self.feed_timer.timeout.connect(self._on_feed_timer_timeout)
        # undo and redo stay within the topic being judged, or say what they undo
        self.undo_action = QAction("&Undo", self)
        self.redo_action = QAction("&Redo", self)
        self._asked: tuple[str, int] | None = None  # an undo/redo in another topic, asked once
        # always enabled: a key that undoes nothing says so (in the judging view)
        self.undo_stack.undoTextChanged.connect(
            lambda text: self.undo_action.setText(f"&Undo {text}".strip())
        )
        self.undo_stack.redoTextChanged.connect(
            lambda text: self.redo_action.setText(f"&Redo {text}".strip())
        )
        window.add_undo_actions(self.undo_action, self.redo_action)
        self.judging.next_topic_finder = self.next_topic_after
        self.search = SearchController(
            window.search_view, self.undo_stack, parent=self, ops=self.ops
        )
        self._connect()
        self._rebuild_recent_menu()
        self.window.actions_by_name["open_demo"].setEnabled(demo is not None)

    # -- wiring ---------------------------------------------------------------------------------
    def _connect(self) -> None:
        a = self.window.actions_by_name
        a["new_project"].triggered.connect(self._on_new_project_triggered)
        a["open_project"].triggered.connect(self._on_open_project_triggered)
        a["open_demo"].triggered.connect(self._on_open_demo_triggered)
        for kind in ("topics", "documents", "runs", "qrels"):
            a[f"import_{kind}"].triggered.connect(lambda _=False, k=kind: self.show_import(k))
        a["export_qrels"].triggered.connect(self._on_export_qrels_triggered)
        a["export_mine"].triggered.connect(self._on_export_mine_triggered)
        a["quit"].triggered.connect(self.window.close)
        a["choose_assessor"].triggered.connect(self._on_choose_assessor_triggered)
        a["build_pool"].triggered.connect(self._on_build_pool_triggered)
        a["scale"].triggered.connect(self._on_scale_triggered)
        a["stop_target"].triggered.connect(self._on_stop_target_triggered)
        a["adjudicate"].triggered.connect(self._on_adjudicate_triggered)
        a["team"].triggered.connect(self._on_team_triggered)
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
        topics.pooled_only.toggled.connect(self._on_pooled_only_toggled)
        self.undo_action.triggered.connect(lambda: self._on_undo_redo_triggered(undo=True))
        self.redo_action.triggered.connect(lambda: self._on_undo_redo_triggered(undo=False))
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

    # -- projects ---------------------------------------------------------------------------------
    def open_project(self, db: str, create: bool = False) -> None:
        """Open `db`, with the assessor remembered for it, in a worker; the window shows it
        once it is read (`project_opened`). Nothing at `db`: a new project is created there
        with `create` (New project…), else the user is asked. Opening reads nothing of the
        project through (a check of the file runs only after a crash, in the background)."""
        self.opening = db
        self.window.statusBar().showMessage(f"Opening {db}…")
        by_project = self._assessors_by_project()
        fallback = self.settings.value("assessor")
        opener = self.opener

        def load() -> tuple[Workbench, WorkbenchState, str | None]:
            workbench = opener(db, create)
            try:
                assessor = _assessor_for(workbench, by_project, fallback)
                refused = None
                try:
                    workbench.set_assessor(assessor)
                except Exception as exc:  # a read-only project that does not know this name, ...
                    if workbench.read_only:
                        refused = (
                            f"{workbench.read_only_reason()}\n\n{assessor!r} has no judgments "
                            "in it, and a new name cannot be added to it. Choose one of its "
                            "assessors to read their judgments, or open another project."
                        )
                    else:
                        refused = (
                            f"Judgments cannot be recorded as {assessor!r}: {exc}\n\nThe "
                            "project is shown; choose a known assessor (Judging ▸ Assessor…) "
                            "to judge."
                        )
                return workbench, workbench.state(), refused
            except BaseException:
                workbench.close()
                raise

        self.ops.write(
            load,
            lambda opened: self._on_project_loaded(db, *opened),
            failed=lambda exc: self._on_open_failed(db, exc),
            what="opening the project",
        )

    def _on_open_failed(self, db: str, exc: BaseException) -> None:
        if self.opening == db:
            self.opening = None
            self.window.statusBar().clearMessage()
        if isinstance(exc, NoProject):  # a mistyped path, a moved file: never a silent new one
            self._ask_create(db)
            return
        # not a project, a newer schema, ...: the message names the file (once)
        text = str(exc)
        self._error("Cannot open project", text if db in text else f"{db}: {text}")

    def _ask_create(self, db: str) -> QMessageBox:
        """Nothing at `db`: create a new, empty project there, or not."""
        box = plain(
            QMessageBox(
                QMessageBox.Icon.Question,
                "No project there",
                f"There is no project at {db}.\n\nCreate a new, empty project there?",
                parent=self.window,
            )
        )
        create = box.addButton("Create project", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)

        def clicked(button) -> None:
            if button is create:
                self.open_project(db, create=True)
            else:
                self.window.statusBar().showMessage(f"Nothing was created at {db}.", 8000)

        box.buttonClicked.connect(clicked)
        box.open()
        self.last_warning = f"There is no project at {db}."
        return box

    def _on_project_loaded(
        self, db: str, workbench: Workbench, state: WorkbenchState, refused: str | None = None
    ) -> None:
        if self.opening != db:  # another project was asked for meanwhile
            self.ops.write(workbench.close, what="closing a project")
            return
        self.opening = None
        self.window.statusBar().clearMessage()
        if self.workbench is not None:
            self._stop_estimates()
            self._stop_feed()
            old = self.workbench
            self.ops.write(old.close, what="closing the project")  # after its writes
        self.workbench = workbench
        if not workbench.read_only:  # (opened immutable: no other writer's change is seen)
            self._start_feed(workbench)
        if refused is not None:
            self._ask_assessor_or_project(refused)
        self._remember_project(db)
        self._remember_assessor(workbench.path, state.assessor)
        self.judging.set_workbench(workbench)
        self.search.set_workbench(workbench)
        self.search.set_topic(None, None, None)
        read_only = " (read-only)" if workbench.read_only else ""
        self.window.setWindowTitle(f"{state.title}{read_only} — judgeapp")
        self._show_state(state)
        self._reset_estimates()
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
            self._check_file(workbench, after_crash=True)
        self.project_opened.emit(workbench)

    def _show_state(self, state: WorkbenchState) -> None:
        """Show what was read of the project: scale, who sees what, topic list, pools."""
        self.state = state
        self.judging.apply_scale(state.scale, state.guidelines, state.relevant_from)
        self.judging.has_pool = state.pool is not None
        self.search.set_scale(state.scale)
        self.search.set_blind(state.blind)
        if self.adjudication is not None:
            self.adjudication.view.set_scale(state.scale)
        self._apply_visibility(state.blind, state.assignments)
        self._show_topic_rows(state.topic_rows)
        wb = self.workbench
        note = ""
        if wb is not None and wb.read_only:
            note = "This project is read-only for you: nothing can be added to it here."
        elif state.blind or (wb is not None and wb.is_member):
            note = "Only the project's owner adds topics, runs and pools to it."
        self.window.topics_view.show_progress_hint(
            len(state.topic_rows), len(state.runs), bool(state.pools), note
        )
        self._rebuild_pool_menu()
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

    def check_file(self) -> None:
        """Check the project file for damage (SQLite's quick_check), in the background."""
        if self.workbench is not None:
            self._check_file(self.workbench, after_crash=False)

    def _check_file(self, workbench: Workbench, *, after_crash: bool) -> None:
        # in the writing lane: a judgment waits for it, and is never written into a
        # damaged file (Store.check_due)
        why = "after a session that ended without closing it" if after_crash else "on request"
        self.window.statusBar().showMessage(f"Checking the project file ({why})…")

        def checked(found: list[str]) -> None:
            self.last_check = found
            if found == ["ok"]:
                self.window.statusBar().showMessage("The project file is sound.", 8000)
            else:
                self._error("The project file is damaged", "\n".join(found[:10]))

        def failed(exc: BaseException) -> None:
            self.last_check = [str(exc)]
            self.window.statusBar().clearMessage()
            self._error("The project file is damaged", str(exc))

        self.ops.write(workbench.check_file, checked, failed=failed, what="checking the file")

    def reopen_last(self) -> bool:
        """Open the project used last, if it is still there; True when it opened."""
        last = self.settings.value("last_project")
        if not last:
            return False
        last = str(last)
        if "://" not in last and not Path(last).is_file():
            return False  # moved or deleted since: the caller opens the demo instead
        self.open_project(last)
        return True

    def _remember_project(self, db: str) -> None:
        recent = [p for p in self._recent() if p != db]
        recent.insert(0, db)
        self.settings.setValue("recent_projects", json.dumps(recent[:MAX_RECENT]))
        self.settings.setValue("last_project", db)
        self._rebuild_recent_menu()

    def _recent(self) -> list[str]:
        try:
            value = json.loads(str(self.settings.value("recent_projects", "[]")))
        except ValueError:
            return []
        return [str(v) for v in value] if isinstance(value, list) else []

    def _rebuild_recent_menu(self) -> None:
        menu = self.window.recent_menu
        menu.clear()
        for path in self._recent():
            action = menu.addAction(location_shown(path))
            action.triggered.connect(lambda _=False, p=path: self.open_project(p))
        menu.setEnabled(bool(self._recent()))

    def _assessors_by_project(self) -> dict[str, str]:
        try:
            value = json.loads(str(self.settings.value("assessors_by_project", "{}")))
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    def _remember_assessor(self, path: str, name: str | None) -> None:
        if not name:
            return
        by_project = self._assessors_by_project()
        by_project[path] = name
        self.settings.setValue("assessors_by_project", json.dumps(by_project))
        self.settings.setValue("assessor", name)

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
            failed=lambda exc: self._error("Cannot judge as this assessor", str(exc)),
            what="choosing the assessor",
        )

    def _on_assessor_set(self, wb: Workbench, name: str, state: WorkbenchState) -> None:
        if wb is not self.workbench:
            return
        self._remember_assessor(wb.path, name)
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
        self._reset_estimates()
        if qid is not None:
            self.judging.open_topic(qid)

    # -- topic list ---------------------------------------------------------------------------------
    def refresh_topics(self) -> None:
        """Read every topic row again (one grouped query, in a worker)."""
        wb = self.workbench
        if wb is None:
            self._show_topic_rows([])
            return
        self.ops.read(wb.topic_rows, self._show_topic_rows, key="topic rows", lane="rows")

    def _show_topic_rows(self, rows: list[TopicRow]) -> None:
        view = self.window.topics_view
        view.model.set_rows([self._with_estimate(r) for r in rows])
        view.show_estimates(view.model.show_estimates)
        view.show_imported(view.model.has_imported())
        # once a pool exists, the topics it leaves out are hidden (a box shows them again)
        has_pool = any(r.pool_size for r in rows)
        view.pooled_only.setEnabled(has_pool)
        if has_pool != self._had_pool:
            self._had_pool = has_pool
            view.pooled_only.setChecked(has_pool)
        self._update_summary()

    # -- estimates of the relevant documents still missing, in the topic list -------------------
    def _with_estimate(self, row: TopicRow) -> TopicRow:
        est = self.estimates.get(row.qid)
        if est is None:
            return dataclasses.replace(row, missing=None, missing_low=None, missing_high=None)
        low, high = est.missing_interval
        return dataclasses.replace(row, missing=est.missing, missing_low=low, missing_high=high)

    def request_estimates(self, qids=None, *, delay: bool = True) -> None:
        """Estimate again the topics `qids` (every judged topic: None), after a pause. A
        blind assessor gets none (an estimate of what is left biases when to stop)."""
        if self.blind:
            return
        if qids is None:
            self._estimate_pending = None
        elif self._estimate_pending is not None:
            self._estimate_pending |= set(qids)
        self.estimate_timer.start(ESTIMATE_DELAY_MS if delay else 0)

    def _reset_estimates(self) -> None:
        """Another project, pool or assessor: every estimate shown is void."""
        self._estimate_generation += 1
        if self._estimate_worker is not None:
            self._estimate_worker.cancel()
        self.estimates = {}
        # the rows shown lose the void estimates at once, not when the new ones arrive
        model = self.window.topics_view.model
        for row in model.rows():
            if row.missing is not None:
                model.update_row(self._with_estimate(row))
        self.request_estimates(None, delay=False)

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
        self.blind = blind
        if blind:
            self._stop_estimates()
            self.estimates = {}
            self.estimates_updated.emit({})
            view.model.show_estimates = False
            view.show_estimates(False)
        self.blind_changed.emit(blind)

    def estimates_settled(self) -> bool:
        """No estimate running or waiting (screenshots, tests)."""
        return self._estimate_worker is None and not self.estimate_timer.isActive()

    def _stop_estimates(self) -> None:
        self.estimate_timer.stop()
        self._estimate_generation += 1
        if self._estimate_worker is not None:
            self._estimate_worker.cancel()  # its result is for the project closing

    def _run_estimates(self) -> None:
        wb = self.workbench
        if wb is None:
            return
        if self._estimate_worker is not None:
            return  # started again when the running one is done
        qids, self._estimate_pending = self._estimate_pending, set()
        if qids is not None and not qids:
            return
        gen = self._estimate_generation

        def estimate(progress):
            # the estimator's scipy, imported the first time here: frozen (judgeapp.lasting)
            import_for_good("scipy.stats", "scipy.special")
            return wb.topic_estimates(qids, progress)

        worker = self.ops.read(
            estimate,
            lambda result: self._on_estimates(gen, qids, result),
            failed=lambda _exc: None,  # cancelled, or the pool went away: nothing to show
            lane="estimates",
            what="estimates",
            cancellable=True,
            finished=self._on_estimates_finished,
        )
        self._estimate_worker = worker

    def _on_estimates(self, gen: int, qids, result: dict[str, Estimate]) -> None:
        if gen != self._estimate_generation:
            return  # for another project, pool or assessor
        if qids is None:
            self.estimates = dict(result)
        else:
            for qid in qids:
                self.estimates.pop(qid, None)
            self.estimates.update(result)
        view = self.window.topics_view
        for row in view.model.rows():
            new = self._with_estimate(row)
            if new != row:
                view.model.update_row(new)
        view.model.show_estimates = bool(self.estimates)
        view.show_estimates(bool(self.estimates))
        self.estimates_updated.emit(dict(self.estimates))

    def _on_estimates_finished(self) -> None:
        self._estimate_worker = None
        if self._estimate_pending is None:
            self.estimate_timer.start(0)  # a reset came while it ran
        elif self._estimate_pending:
            # judgments came while it ran: they wait for the next pause too (started at
            # once, estimates would follow the judging back to back, competing with it)
            self.estimate_timer.start(ESTIMATE_DELAY_MS)

    def _update_summary(self) -> None:
        view = self.window.topics_view
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
        self.window.topics_view.proxy.set_pooled_only(on)
        self._update_summary()

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

    def _rebuild_pool_menu(self) -> None:
        menu = self.window.pool_menu
        menu.clear()
        state = self.state
        if self.workbench is None or state is None:
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
        wb = self.workbench
        if wb is None:
            return
        self.ops.write(lambda: wb.choose_pool(name), self.apply_changes, what="choosing a pool")

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
        view = self.window.topics_view
        qid = view.current_qid()
        if qid is None and view.proxy.rowCount():
            qid = view.proxy.index(0, 0).data(view.model.QidRole)
        if qid is None:
            self.window.statusBar().showMessage("No topic matches the filter.", 6000)
            return
        self.open_topic(qid)

    def _on_tab_changed(self, _index: int) -> None:
        # the judging view shown (a tab chosen, Ctrl+2, the dashboard back from its own
        # window): its keys go to the document, not to a field or a hidden widget
        if self.window.tabs.currentWidget() is self.window.judging_view:
            self.window.judging_view.focus_document()

    def next_topic_after(self, qid: str) -> str | None:
        """The next topic in the topic list's order (the assessor's own topics first when
        they have some) with pooled documents they have not judged."""
        view = self.window.topics_view
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

    # -- undo and redo ---------------------------------------------------------------------------
    def _on_undo_redo_triggered(self, undo: bool) -> None:
        """Undo (redo) the last change. In the judging view, a change made in another topic
        is not undone at once: the first key says which change and where, a second one does
        it (and opens that topic)."""
        stack = self.undo_stack
        index = stack.index() - 1 if undo else stack.index()
        verb = "undo" if undo else "redo"
        judging = self.window.judging_view
        on_judging = self.window.tabs.currentWidget() is judging
        if not (0 <= index < stack.count()):
            if on_judging:
                judging.show_notice(f"Nothing to {verb}.")
            return
        command = stack.command(index)
        change = getattr(command, "change", None)
        queue = self.judging.queue
        elsewhere = (
            on_judging and change is not None and queue is not None and change.qid != queue.qid
        )
        if elsewhere and change is not None and queue is not None and self._asked != (verb, index):
            self._asked = (verb, index)
            key = "Ctrl+Z" if undo else "Ctrl+Shift+Z"
            judging.show_notice(
                f"Nothing was {verb}ne yet: the last change was in topic {change.qid}, not in "
                f"topic {queue.qid} ({command.text()}). {key} again {verb}es it there."
            )
            return
        self._asked = None
        text = command.text()
        if undo:
            stack.undo()
        else:
            stack.redo()
        where = f" in topic {change.qid}" if change is not None else ""
        message = f"{'Undone' if undo else 'Redone'}: {text}{where}"
        self.window.statusBar().showMessage(message, 8000)
        if elsewhere and on_judging and change is not None:
            # shown once that topic is open (read in a worker after the undo is committed)
            self.judging.notice_after_load = message + f" (topic {change.qid} is open now)."

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
            self._reset_estimates()
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
            self._refresh_topic_rows(changes.topics)
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

    # -- following other processes ----------------------------------------------------------
    def _start_feed(self, workbench: Workbench) -> None:
        def started(feed: ChangeFeed) -> None:
            if workbench is self.workbench:
                self.feed = feed
                self.feed_timer.start()
            else:
                self.ops.read(feed.close, lane="feed", what="closing the feed")

        def failed(exc: BaseException) -> None:  # a server that refuses a second connection
            self.window.statusBar().showMessage(f"Not following other writers: {exc}", 10000)

        self.ops.read(workbench.change_feed, started, failed=failed, lane="feed")

    def _stop_feed(self) -> None:
        self.feed_timer.stop()
        if self.feed is not None:
            feed, self.feed = self.feed, None
            self.ops.read(feed.close, lane="feed", what="closing the feed")  # after its poll
        self._polling = False

    def _on_feed_timer_timeout(self) -> None:
        feed = self.feed
        if feed is None or self._polling:
            return
        self._polling = True

        def polled(changes: Changes | None) -> None:
            self._polling = False
            if changes is not None and feed is self.feed:
                self.apply_external(changes)

        def failed(exc: BaseException) -> None:
            # the file moved away, the server went down: say so once
            self._polling = False
            if feed is self.feed:
                self._stop_feed()
                self.window.statusBar().showMessage(f"Stopped following other writers: {exc}")

        self.ops.read(feed.poll, polled, failed=failed, lane="feed", what="following others")

    def _refresh_topic_rows(self, qids) -> None:
        """The rows of `qids` again: the open topic's from its queue (in memory: no query
        per key), the others read in a worker."""
        model = self.window.topics_view.model
        queue = self.judging.queue
        others = []
        for qid in qids:
            row = model.row_of(qid)
            if row is None:
                continue
            old = model.topic(row)
            if queue is not None and queue.qid == qid:
                pooled, judged, relevant = queue.counts()
                new = dataclasses.replace(old, pool_size=pooled, judged=judged, relevant=relevant)
                model.update_row(self._with_estimate(new))
            else:
                others.append(qid)
        self._update_summary()
        wb = self.workbench
        if others and wb is not None:
            self.ops.read(lambda: wb.topic_rows(others), self._update_topic_rows, lane="rows")

    def _update_topic_rows(self, rows: list[TopicRow]) -> None:
        model = self.window.topics_view.model
        for row in rows:
            if model.row_of(row.qid) is not None:
                model.update_row(self._with_estimate(row))
        self._update_summary()

    def _on_judging_changed(self, changes: Changes) -> None:
        self.apply_changes(changes)

    # -- adjudication -----------------------------------------------------------------------------
    def _on_adjudicate_triggered(self) -> None:
        self.show_adjudication()

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

    def _on_team_triggered(self) -> None:
        self.show_team()

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

    # -- long work ----------------------------------------------------------------------------------
    def run_task(
        self,
        dialog: TaskDialog,
        fn: Callable[[ProgressFn], Any],
        on_done: Callable[[Any], None],
        description: str,
    ) -> Worker:
        worker = Worker(fn, description)
        self.worker = worker
        dialog.set_running(True)
        dialog.cancel_requested.connect(worker.cancel)
        worker.signals.progressed.connect(dialog.set_progress)

        def succeeded(result: Any) -> None:
            dialog.set_running(False)
            on_done(result)
            dialog.accept()

        def failed(exc: BaseException) -> None:
            dialog.set_running(False)
            if isinstance(exc, Cancelled):
                dialog.show_message("Cancelled: nothing was changed.")
            else:
                dialog.show_error(str(exc) or type(exc).__name__)

        def finished() -> None:
            self.worker = None
            self.task_finished.emit(worker)

        worker.signals.succeeded.connect(succeeded)
        worker.signals.failed.connect(failed)
        worker.signals.finished.connect(finished)
        worker.start(self.thread_pool)
        return worker

    # -- imports ------------------------------------------------------------------------------------
    def show_import(self, kind: str) -> ImportDialog | None:
        if self.workbench is None:
            return None
        dialog = ImportDialog(kind, self.window)
        dialog.submitted.connect(lambda: self._on_import_submitted(dialog))
        self.dialog = dialog
        dialog.open()
        return dialog

    def _on_import_submitted(self, dialog: ImportDialog) -> None:
        wb = self.workbench
        if wb is None:
            return
        paths = dialog.paths()

        def work(progress: ProgressFn):
            return wb.import_files(dialog.kind, paths, progress=progress)

        def done(report) -> None:
            self.window.statusBar().showMessage(f"Imported {report.detail}", 8000)
            self.apply_changes(report.changes | Changes(topic_list=True))
            self._update_status()

        self.run_task(dialog, work, done, f"import {dialog.kind}")

    # -- pools ----------------------------------------------------------------------------------------
    def _on_build_pool_triggered(self) -> None:
        self.show_pool_dialog()

    def show_pool_dialog(self) -> PoolDialog | None:
        wb = self.workbench
        if wb is None:
            return None
        from judgeapp.pooling import DEFAULT_ORDER, ORDERS, STRATEGIES

        state = self.state
        if state is None:
            return None
        runs = state.runs
        taken = {p.name for p in state.pools}
        name = next(f"pool-{i}" for i in range(1, len(taken) + 2) if f"pool-{i}" not in taken)
        dialog = PoolDialog(
            runs,
            STRATEGIES,
            list(ORDERS),
            name,
            self.window,
            topics=[r.qid for r in state.topic_rows],
            run_topics=state.run_topics,
        )
        dialog.set_order(DEFAULT_ORDER)
        dialog.submitted.connect(lambda: self._on_pool_submitted(dialog))
        self.dialog = dialog
        dialog.open()
        return dialog

    def _on_pool_submitted(self, dialog: PoolDialog) -> None:
        wb = self.workbench
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
            self.window.statusBar().showMessage(
                f"Pool {info.name}: {info.n_docs} documents over {info.n_topics} topics", 8000
            )
            self.apply_changes(Changes(pools=True))
            if missing:
                self._warn(
                    "Documents without text",
                    f"{missing:,} of the {pooled:,} pooled documents of {info.name} have no "
                    "text in the project: assessors would judge them by their docno alone "
                    "(the judging view asks them to press a grade key twice). Import the "
                    "collection's documents first (Project ▸ Import documents…).",
                )

        self.run_task(dialog, work, done, "build pool")

    # -- the scale ------------------------------------------------------------------------------------
    def _on_scale_triggered(self) -> None:
        self.show_scale_dialog()

    def show_scale_dialog(self) -> ScaleDialog | None:
        """The project's scale, definitions and guidelines, for its owner to define."""
        from judgeapp.services import scale

        wb = self.workbench
        if wb is None or self.blind:
            return None
        state = self.state
        if state is None:
            return None
        spec = scale.ScaleSpec(tuple(state.scale), state.relevant_from, state.guidelines)
        dialog = ScaleDialog(spec, scale.PRESETS, self.window)
        dialog.chosen.connect(lambda spec: self._on_scale_chosen(dialog, spec))
        self.scale_dialog = dialog
        dialog.open()
        return dialog

    def _on_scale_chosen(self, dialog: ScaleDialog, spec) -> None:

        wb = self.workbench
        if wb is None:
            return

        def saved(changes: Changes) -> None:
            dialog.accept()
            self.apply_changes(changes)
            self.window.statusBar().showMessage("The scale is saved; every window shows it.", 8000)

        # refused: people's grades dropped, a database refusing the owner's change (an
        # assessor's connection), ...
        self.ops.write(
            lambda: wb.apply_scale(spec),
            saved,
            failed=lambda exc: dialog.show_error(str(exc)),
            what="saving the scale",
        )

    # -- the stopping advice's target -----------------------------------------------------------
    def _on_stop_target_triggered(self) -> None:
        self.show_stop_dialog()

    def show_stop_dialog(self) -> StopTargetDialog | None:
        """The target recall and confidence of the stopping advice, for the project."""
        wb = self.workbench
        if wb is None or self.blind:
            return None
        dialog = StopTargetDialog(STOP_TARGET, STOP_CONFIDENCE, self.window)
        dialog.setEnabled(False)  # until the project's target is read (in a worker)

        def show(target: tuple[float, float]) -> None:
            dialog.set_target(*target)
            dialog.setEnabled(True)

        self.ops.read(wb.stop_target, show, key="stop target")
        dialog.chosen.connect(self._on_stop_target_chosen)
        self.stop_dialog = dialog
        dialog.open()
        return dialog

    def _on_stop_target_chosen(self, target: float, confidence: float) -> None:
        wb = self.workbench
        if wb is None:
            return

        def saved(_result: object) -> None:
            self._reset_estimates()  # the advice shown was for the old target
            self.window.statusBar().showMessage(
                f"Stopping advice: {target:.0%} recall, {confidence:.1%} confident.", 8000
            )

        self.ops.write(
            lambda: wb.set_stop_target(target, confidence),
            saved,
            # a database refusing the change (an assessor's connection)
            failed=lambda exc: self._warn("Stopping advice", str(exc)),
            what="saving the stopping advice's target",
        )

    # -- export -------------------------------------------------------------------------------------
    def _on_export_qrels_triggered(self) -> None:
        self.show_export_dialog(mine=False)

    def _on_export_mine_triggered(self) -> None:
        self.show_export_dialog(mine=True)

    def show_export_dialog(self, mine: bool = False) -> QFileDialog | None:
        """Export every effective judgment (newest per topic and document, imported qrels
        included), or only the current assessor's."""
        if self.workbench is None:
            return None
        title = "Export my judgments" if mine else "Export qrels"
        dialog = QFileDialog(self.window, title)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        dialog.setNameFilters(["TREC qrels (*.qrels *.txt)", "All files (*)"])
        title = self.state.title if self.state is not None else "judgments"
        name = f"{title.replace(' ', '-')}.qrels"
        self.save_folders.prepare(dialog, name)
        dialog.fileSelected.connect(lambda path: self.export_qrels(path, mine=mine))
        self.file_dialog = dialog
        dialog.open()
        return dialog

    def export_qrels(self, path: str, mine: bool = False) -> None:
        """Write the qrels to `path` in a worker; the status bar says how many
        (`exported(count)` too)."""
        wb = self.workbench
        if wb is None:
            return
        if self.blind and not mine:  # (the menu item is disabled: this is its guard)
            self._error("Export qrels", "An assessor judging blind exports their own judgments.")
            return
        who = [wb.assessor] if mine and wb.assessor else None

        def wrote(count: int) -> None:
            self.window.statusBar().showMessage(f"Wrote {count} judgments to {path}", 8000)
            self.exported.emit(count)

        self.ops.read(
            lambda: wb.export_qrels(path, who),
            wrote,
            failed=lambda exc: self._error("Export failed", str(exc)),
            what="exporting qrels",
        )

    # -- project dialogs -----------------------------------------------------------------------------
    def _project_file_dialog(self, title: str, save: bool) -> QFileDialog:
        dialog = QFileDialog(self.window, title)
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        dialog.setNameFilters(["judgeapp projects (*.db *.judgeapp)", "All files (*)"])
        if save:
            dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
            dialog.setDefaultSuffix("db")
        else:
            dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        # a new project is created where it is asked for; an open one must be there
        dialog.fileSelected.connect(lambda path: self.open_project(path, create=save))
        self.file_dialog = dialog
        dialog.open()
        return dialog

    def _on_new_project_triggered(self) -> None:
        self._project_file_dialog("New project", save=True)

    def _on_open_project_triggered(self) -> None:
        self._project_file_dialog("Open project", save=False)

    def _on_open_demo_triggered(self) -> None:
        self.open_demo()

    def open_demo(self) -> None:
        """Build the demo project if needed (in a worker, with progress), then open it."""
        if self.demo is None:
            return
        dialog = TaskDialog("Preparing the demo project", "Start", self.window)
        dialog.message.setText("Building the Cranfield demo project (first launch only)…")
        dialog.start_button.setVisible(False)
        self.dialog = dialog
        dialog.open()
        demo = self.demo
        self.run_task(dialog, demo, lambda path: self.open_project(str(path)), "demo")

    def _on_choose_assessor_triggered(self) -> None:
        self.show_assessor_dialog()

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
        self.assessor_dialog = dialog
        dialog.open()
        return dialog

    # -- closing ---------------------------------------------------------------------------------------
    def _on_window_closing(self) -> None:
        self._stop_estimates()
        self._stop_feed()
        if self.worker is not None:
            self.worker.cancel()
            self.thread_pool.waitForDone()
        self.settings.setValue("geometry", self.window.saveGeometry())
        self.settings.sync()
        # the judgments on their way are committed first (the writing lane is waited for)
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
        self.last_error = f"{what}: {exc}"

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
        self.last_warning = text
        return box

    def _warn(self, title: str, text: str) -> None:
        box = plain(QMessageBox(QMessageBox.Icon.Warning, title, text, parent=self.window))
        box.open()
        self.last_warning = text

    def _error(self, title: str, text: str) -> None:
        box = plain(QMessageBox(QMessageBox.Icon.Warning, title, text, parent=self.window))
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.open()
        self.last_error = text


def _assessor_for(workbench: Workbench, by_project: dict[str, str], fallback: Any) -> str:
    """Who judges when a project opens: the assessor remembered for it, else the one
    chosen last anywhere (unless that name is an imported qrels source here), else the
    login name. A team member's role judges as its own assessor only."""
    connected = workbench.connected_as()
    if connected is not None:
        return connected
    name = by_project.get(workbench.path) or fallback
    if name and name not in workbench.persons() and name in workbench.sources():
        name = None
    return str(name) if name else _login_name()


def _login_name() -> str:
    try:
        return getpass.getuser() or "assessor"
    except Exception:
        return "assessor"
