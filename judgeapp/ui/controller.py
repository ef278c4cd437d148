"""The main window's controller: projects, assessors, imports, pools, export, topic list.

Every signal of the main window is connected in `_connect` and handled by an `_on_...`
slot. Long work (imports, pooling, building the demo) runs in a `Worker`; its dialog shows
progress and can cancel. After every change the controller re-broadcasts the store's change
descriptor as `changes_applied(Changes)`, so each view refreshes only what changed.
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
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from judgeapp.pooling.estimate import Estimate
from judgeapp.records import Changes
from judgeapp.services.progress import Cancelled, ProgressFn
from judgeapp.services.rows import TopicRow
from judgeapp.services.workbench import ChangeFeed, Workbench, location_shown
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
from judgeapp.ui.main_window import MainWindow
from judgeapp.ui.plain import plain
from judgeapp.ui.save_folders import SaveFolders
from judgeapp.ui.team_view import TeamController, TeamView
from judgeapp.ui.worker import Worker

MAX_RECENT = 8
FEED_MS = 300  # how often the window asks whether other processes changed the project
ESTIMATE_DELAY_MS = 800  # the topic list's estimates wait for a pause in the judging
Opener = Callable[[str], Workbench]


class MainController(QObject):
    project_opened = Signal(object)  # the Workbench
    changes_applied = Signal(object)  # Changes: what a committed change touched
    task_finished = Signal(object)  # the Worker, with its result or error, once it is done
    estimates_updated = Signal(object)  # {qid: Estimate} now shown in the topic list
    blind_changed = Signal(bool)  # the current assessor judges blind (or no longer)

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
        self.workbench: Workbench | None = None
        self.blind = False  # the current assessor judges blind (judgeapp.services.team)
        self.adjudication: AdjudicationController | None = None  # made when first asked for
        self.team: TeamController | None = None  # the same
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setUndoLimit(0)  # no limit: every judgment of the session
        self.judging = JudgingController(window.judging_view, self.undo_stack, parent=self)
        window.judging_view.watch_activity(QApplication.instance())
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
        self._had_pool = False  # the topic list had a pool to show (pooled topics only)
        # the topic list's "estimated missing relevant": computed in a worker of its own
        self.estimates: dict[str, Estimate] = {}
        self._estimate_pending: set[str] | None = set()  # None: every judged topic
        self._estimate_worker: Worker | None = None
        self._estimate_generation = 0
        self.estimate_pool = QThreadPool(self)
        self.estimate_pool.setMaxThreadCount(1)
        self.estimate_timer = QTimer(self)
        self.estimate_timer.setSingleShot(True)
        self.estimate_timer.setInterval(ESTIMATE_DELAY_MS)
        self.estimate_timer.timeout.connect(self._run_estimates)
        # what other processes (assessors, imports) commit appears here within a moment
        self.feed: ChangeFeed | None = None
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
        a["shortcuts"].triggered.connect(self.judging._on_help_triggered)
        topics = self.window.topics_view
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
        self.judging.topic_opened.connect(self._on_topic_opened)
        self.estimates_updated.connect(self.judging.show_estimates)
        self.window.closing.connect(self._on_window_closing)

    # -- projects ---------------------------------------------------------------------------------
    def open_project(self, db: str) -> Workbench | None:
        """Open `db` (created if new), with the assessor remembered for it."""
        try:
            workbench = self.opener(db)
        except Exception as exc:  # a file that is not a project, a newer schema, ...
            self._error("Cannot open project", f"{db}: {exc}")
            return None
        if self.workbench is not None:
            self._stop_estimates()
            self._stop_feed()
            self.workbench.close()
        self.workbench = workbench
        self._start_feed(workbench)
        assessor = self._remembered_assessor(workbench)
        try:
            workbench.set_assessor(assessor)
        except Exception as exc:  # a read-only project that does not know this name yet, ...
            self._warn(
                "Opened for reading only",
                f"{db}: judgments cannot be recorded as {assessor!r}: {exc}\n\nThe project "
                "is shown; choose a known assessor (Judging ▸ Assessor…) to judge.",
            )
        self._remember_project(db)
        self.judging.set_workbench(workbench)
        self.window.setWindowTitle(f"{workbench.display_name()} — judgeapp")
        self._apply_visibility()
        self._reset_estimates()
        self.refresh_topics()
        self._rebuild_pool_menu()
        self._update_status()
        last = workbench.last_topic()
        if last is not None and self.judging.open_topic(last):
            # reopening resumes on the first unjudged document of the last topic
            self.window.topics_view.select_qid(last)
            self.window.show_view(self.window.judging_view)
        else:
            self.window.show_view(self.window.topics_view)
            self.window.topics_view.table.setFocus()
        self.project_opened.emit(workbench)
        return workbench

    def reopen_last(self) -> bool:
        """Open the project used last, if it is still there; True when it opened."""
        last = self.settings.value("last_project")
        if not last:
            return False
        last = str(last)
        if "://" not in last and not Path(last).is_file():
            return False  # moved or deleted since: the caller opens the demo instead
        return self.open_project(last) is not None

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

    def _remembered_assessor(self, workbench: Workbench) -> str:
        connected = workbench.connected_as()
        if connected is not None:  # a team member's role judges as its own assessor only
            return connected
        name = self._assessors_by_project().get(workbench.path) or self.settings.value("assessor")
        if name and name not in workbench.persons():
            # a name remembered from elsewhere is fine unless it is an imported source here
            if name in workbench.sources():
                name = None
        return str(name) if name else _login_name()

    def set_assessor(self, name: str) -> None:
        wb = self.workbench
        if wb is None:
            return
        try:
            wb.set_assessor(name)
        except Exception as exc:
            self._error("Cannot judge as this assessor", str(exc))
            return
        by_project = self._assessors_by_project()
        by_project[wb.path] = name
        self.settings.setValue("assessors_by_project", json.dumps(by_project))
        self.settings.setValue("assessor", name)
        qid = self.judging.queue.qid if self.judging.queue is not None else wb.last_topic()
        self.judging.set_workbench(wb)
        self._apply_visibility()
        self._reset_estimates()
        self.refresh_topics()
        self._update_status()
        if qid is not None:
            self.judging.open_topic(qid)

    # -- topic list ---------------------------------------------------------------------------------
    def refresh_topics(self) -> None:
        view = self.window.topics_view
        wb = self.workbench
        rows = [] if wb is None else wb.topic_rows()
        view.model.set_rows([self._with_estimate(r) for r in rows])
        view.show_estimates(view.model.show_estimates)
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
        self.request_estimates(None, delay=False)

    # -- who sees what ---------------------------------------------------------------------------
    def _apply_visibility(self) -> None:
        """Blind mode for the current assessor: no dashboard, no estimates, no run names or
        ranks (the judging queue), no building pools or importing runs (both show runs)."""
        wb = self.workbench
        blind = wb is not None and wb.is_blind()
        view = self.window.topics_view
        view.show_assignments(wb is not None and bool(wb.assignments()))
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
        member = wb is not None and wb.store.scope is not None
        for name in ("import_topics", "import_documents"):
            self.window.actions_by_name[name].setEnabled(not member)
        for name in ("import_runs", "import_qrels", "build_pool"):
            self.window.actions_by_name[name].setEnabled(not blind and not member)
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
        if self._estimate_worker is not None:
            self._estimate_worker.cancel()
        self.estimate_pool.waitForDone()

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
        worker = Worker(lambda progress: wb.topic_estimates(qids, progress), "estimates")
        self._estimate_worker = worker
        worker.signals.succeeded.connect(lambda result: self._on_estimates(gen, qids, result))
        worker.signals.finished.connect(self._on_estimates_finished)
        worker.start(self.estimate_pool)

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
        wb = self.workbench
        w = self.window
        if wb is None:
            for label in (w.project_label, w.assessor_label, w.pool_label):
                label.setText("")
            return
        w.project_label.setText(f"Project: {wb.display_name()}")
        w.assessor_label.setText(f"Assessor: {wb.assessor}")
        info = wb.pool_info()
        w.pool_label.setText(
            "No pool yet" if info is None else f"Pool: {info.name} ({info.judging_order} order)"
        )

    def _rebuild_pool_menu(self) -> None:
        menu = self.window.pool_menu
        menu.clear()
        wb = self.workbench
        if wb is None:
            menu.setEnabled(False)
            return
        current = wb.pool_name()
        for info in wb.pools():
            action = menu.addAction(f"{info.name}  ({info.strategy}, {info.judging_order})")
            action.setCheckable(True)
            action.setChecked(info.name == current)
            action.triggered.connect(lambda _=False, n=info.name: self.choose_pool(n))
        menu.setEnabled(bool(menu.actions()))

    def choose_pool(self, name: str) -> None:
        if self.workbench is None:
            return
        self.apply_changes(self.workbench.choose_pool(name))

    def open_topic(self, qid: str) -> None:
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
        if elsewhere and self._asked != (verb, index):
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
        if elsewhere and on_judging:
            judging.show_notice(message + f" (topic {change.qid} is open now).")

    # -- changes ------------------------------------------------------------------------------------
    def apply_changes(self, changes: Changes) -> None:
        """Refresh what `changes` touched, then tell every other view."""
        wb = self.workbench
        if wb is None or changes.empty:
            return
        wb.invalidate(changes)
        if changes.scale:
            if wb.judging is not None:
                wb.judging.refresh_scale()
            self.judging.refresh_scale()
            if self.adjudication is not None:
                self.adjudication.view.set_scale(wb.scale())
            self.refresh_topics()  # relevant counts follow the lowest relevant grade
        if changes.pools:
            self._rebuild_pool_menu()
            self._update_status()
            current = self.judging.queue.qid if self.judging.queue is not None else None
            if current is not None:
                self.judging.open_topic(current)
        if changes.topic_list or changes.pools:
            self._reset_estimates()
        elif changes.topics:
            self.request_estimates(changes.topics)
        if self.team is not None and (changes.topics or changes.assessors):
            self.team.schedule()
        if changes.topic_list or changes.pools or len(changes.topics) > 5:
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
        wb.invalidate(changes)
        if changes.assessors or changes.topic_list:  # roles, assignments, blind mode
            was = self.blind
            self._apply_visibility()
            if was != self.blind:  # the open topic as this assessor may now see it
                qid = self.judging.queue.qid if self.judging.queue is not None else None
                self.judging.set_workbench(wb)
                if qid is not None:
                    self.judging.open_topic(qid)
        queue = self.judging.queue
        if queue is not None and not changes.pools and queue.qid in changes.topics:
            self.judging.reload_topic()
        self.apply_changes(changes)
        self._update_status()

    # -- following other processes ----------------------------------------------------------
    def _start_feed(self, workbench: Workbench) -> None:
        try:
            self.feed = workbench.change_feed()
        except Exception as exc:  # a server that refuses a second connection, ...
            self.feed = None
            self.window.statusBar().showMessage(f"Not following other writers: {exc}", 10000)
            return
        self.feed_timer.start()

    def _stop_feed(self) -> None:
        self.feed_timer.stop()
        if self.feed is not None:
            self.feed.close()
            self.feed = None

    def _on_feed_timer_timeout(self) -> None:
        if self.feed is None:
            return
        try:
            changes = self.feed.poll()
        except Exception as exc:  # the file moved away, the server went down: say so once
            self._stop_feed()
            self.window.statusBar().showMessage(f"Stopped following other writers: {exc}")
            return
        if changes is not None:
            self.apply_external(changes)

    def _refresh_topic_rows(self, qids) -> None:
        model = self.window.topics_view.model
        queue = self.judging.queue
        for qid in qids:
            row = model.row_of(qid)
            if row is None:
                continue
            old = model.topic(row)
            if queue is not None and queue.qid == qid:
                pooled, judged, relevant = queue.counts()  # in memory: no query per key
                new = dataclasses.replace(old, pool_size=pooled, judged=judged, relevant=relevant)
            else:
                new = self.workbench.topic_row(qid) if self.workbench else None
            if new is not None:
                model.update_row(self._with_estimate(new))
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
            self.adjudication = AdjudicationController(view, self.undo_stack, parent=self)
            self.adjudication.changed.connect(self.apply_changes)
        view = self.adjudication.view
        if self.window.tabs.indexOf(view) < 0:
            self.window.add_view("Adjudicate", view)
        self.adjudication.open(wb)
        self.window.show_view(view)
        return self.adjudication

    def _on_team_triggered(self) -> None:
        self.show_team()

    def show_team(self) -> TeamController | None:
        """The campaign's progress and agreement, for the owner and evaluators (a tab)."""
        wb = self.workbench
        if wb is None or self.blind:
            return None
        if self.team is None:
            self.team = TeamController(TeamView(), parent=self, save_folders=self.save_folders)
            self.team.changed.connect(self.apply_changes)
        view = self.team.view
        if self.window.tabs.indexOf(view) < 0:
            self.window.add_view("Team", view)
        self.team.open(wb)
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

        runs = wb.run_names()
        taken = {p.name for p in wb.pools()}
        name = next(f"pool-{i}" for i in range(1, len(taken) + 2) if f"pool-{i}" not in taken)
        dialog = PoolDialog(
            runs,
            STRATEGIES,
            list(ORDERS),
            name,
            self.window,
            topics=list(wb.topics()),
            run_topics=wb.run_topics(),
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
        dialog = ScaleDialog(scale.current(wb.store), scale.PRESETS, self.window)
        dialog.chosen.connect(lambda spec: self._on_scale_chosen(dialog, spec))
        self.scale_dialog = dialog
        dialog.open()
        return dialog

    def _on_scale_chosen(self, dialog: ScaleDialog, spec) -> None:
        from judgeapp.services import scale

        wb = self.workbench
        if wb is None:
            return
        try:
            changes = scale.apply(wb.store, spec)
        except Exception as exc:  # people's grades dropped, a database refusing the owner's
            dialog.show_error(str(exc))  # change (an assessor's connection), ...
            return
        dialog.accept()
        self.apply_changes(changes)
        self.window.statusBar().showMessage("The scale is saved; every window shows it.", 8000)

    # -- the stopping advice's target -----------------------------------------------------------
    def _on_stop_target_triggered(self) -> None:
        self.show_stop_dialog()

    def show_stop_dialog(self) -> StopTargetDialog | None:
        """The target recall and confidence of the stopping advice, for the project."""
        wb = self.workbench
        if wb is None or self.blind:
            return None
        dialog = StopTargetDialog(*wb.stop_target(), self.window)
        dialog.chosen.connect(self._on_stop_target_chosen)
        self.stop_dialog = dialog
        dialog.open()
        return dialog

    def _on_stop_target_chosen(self, target: float, confidence: float) -> None:
        wb = self.workbench
        if wb is None:
            return
        try:
            wb.set_stop_target(target, confidence)
        except Exception as exc:  # a database refusing the change (an assessor's connection)
            self._warn("Stopping advice", str(exc))
            return
        self._reset_estimates()  # the advice shown was for the old target
        self.window.statusBar().showMessage(
            f"Stopping advice: {target:.0%} recall, {confidence:.1%} confident.", 8000
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
        name = f"{self.workbench.display_name().replace(' ', '-')}.qrels"
        self.save_folders.prepare(dialog, name)
        dialog.fileSelected.connect(lambda path: self.export_qrels(path, mine=mine))
        self.file_dialog = dialog
        dialog.open()
        return dialog

    def export_qrels(self, path: str, mine: bool = False) -> int:
        wb = self.workbench
        if wb is None:
            return 0
        if self.blind and not mine:  # (the menu item is disabled: this is its guard)
            self._error("Export qrels", "An assessor judging blind exports their own judgments.")
            return 0
        try:
            count = wb.export_qrels(path, [wb.assessor] if mine and wb.assessor else None)
        except Exception as exc:
            self._error("Export failed", str(exc))
            return 0
        self.window.statusBar().showMessage(f"Wrote {count} judgments to {path}", 8000)
        return count

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
        dialog.fileSelected.connect(self.open_project)
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
        names = [connected] if connected is not None else wb.persons()
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
        if self.workbench is not None:
            self.workbench.close()  # every judgment is committed already
            self.workbench = None

    def restore_geometry(self) -> None:
        geometry = self.settings.value("geometry")
        if geometry is not None:
            self.window.restoreGeometry(geometry)

    def _warn(self, title: str, text: str) -> None:
        box = plain(QMessageBox(QMessageBox.Icon.Warning, title, text, parent=self.window))
        box.open()
        self.last_warning = text

    def _error(self, title: str, text: str) -> None:
        box = plain(QMessageBox(QMessageBox.Icon.Warning, title, text, parent=self.window))
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.open()
        self.last_error = text


def _login_name() -> str:
    try:
        return getpass.getuser() or "assessor"
    except Exception:
        return "assessor"
