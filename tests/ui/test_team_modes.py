"""Blind mode in the real window: an assessor with assignments sees no dashboard, no run
name, no rank and no estimate anywhere; an evaluator of the same project sees them all."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTabBar,
    QWidget,
)

from judgeapp.store import Store
from tests.ui.waiting import open_project, settled


def choose_assessor(controller, name: str) -> None:
    dialog = controller.show_assessor_dialog()
    dialog.combo.setCurrentText(name)
    settled()
    dialog.accept()
    settled()


def window_texts(window) -> list[str]:
    """Every text the window shows: labels, buttons, fields, combo items, tabs, menus and
    actions, tool tips, and every cell and header of every visible column of its tables."""
    texts = [window.windowTitle(), window.statusBar().currentMessage()]
    for action in window.findChildren(type(window.actions_by_name["quit"])):
        if action.isVisible():
            texts += [action.text(), action.toolTip()]
    for w in window.findChildren(QWidget):
        texts.append(w.toolTip())
        if isinstance(w, QLabel | QAbstractButton):
            texts.append(w.text())
        elif isinstance(w, QLineEdit):
            texts += [w.text(), w.placeholderText()]
        elif isinstance(w, QComboBox):
            texts += [w.itemText(i) for i in range(w.count())]
        elif isinstance(w, QTabBar):
            texts += [w.tabText(i) for i in range(w.count())]
        elif isinstance(w, QAbstractItemView) and not isinstance(w, QHeaderView) and w.model():
            model = w.model()
            hidden = getattr(w, "isColumnHidden", lambda _c: False)
            root = QModelIndex()
            try:
                n_columns = model.columnCount(root)
            except TypeError:  # a list model (combo boxes, completers): one column
                n_columns = 1
            columns = [c for c in range(n_columns) if not hidden(c)]
            for c in columns:
                texts.append(str(model.headerData(c, Qt.Orientation.Horizontal) or ""))
                for r in range(model.rowCount(root)):
                    for role in (0, 3):  # display and tool tip
                        texts.append(str(model.index(r, c).data(role) or ""))
    return [t for t in texts if t]


def test_a_blind_assessor_sees_no_dashboard_run_rank_or_estimate(qtbot, tmp_path, make_window):
    from live_project import write_project

    from judgeapp.app import _attach_dashboard
    from judgeapp.services.pools import PoolService
    from judgeapp.services.team import assign
    from judgeapp.ui.dashboard import find_dashboard

    project = write_project(tmp_path / "p")
    db = str(project.db)
    with Store.open(db) as store:
        PoolService(store).create_pool("pool", params={"depth": 10}, judging_order="mtf")
        assign(store, ["1", "2", "3", "4"], ["alice", "bob"], per_topic=1, overlap=0.5, seed=3)
        alices = [q for q, a, _s in store.team.assignments() if a == "alice"]
    window, controller = make_window()
    open_project(controller, db)
    choose_assessor(controller, "alice")
    assert controller.blind
    controller.open_topic(alices[0])
    settled()
    for grade in (1, 0, 2):
        controller.judging.view.grade_requested.emit(grade)
        settled()
    controller.request_estimates(None, delay=False)
    qtbot.wait(1200)  # time for estimates, were any computed
    texts = window_texts(window)
    runs = list(project.runs)
    offending = [
        t
        for t in texts
        if any(r in t for r in runs)
        or "Dashboard" in t
        or "rank" in t.lower()
        or "estimat" in t.lower()
        or "Est. missing" in t
    ]
    assert offending == [], offending
    assert find_dashboard(controller) is None or find_dashboard(controller).view.parent() is None
    assert controller.estimates == {}
    # her own topics come first, and say which are shared
    model = window.topics_view.model
    proxy = window.topics_view.proxy
    first = [proxy.index(i, 0).data() for i in range(len(alices))]
    assert sorted(first) == sorted(alices)
    assert any(model.topic(model.row_of(q)).shared for q in alices)

    # an evaluator of the same project sees the dashboard, run names and ranks
    _attach_dashboard(window, controller)
    choose_assessor(controller, "eve")
    assert not controller.blind
    controller.open_topic(alices[0])
    settled()
    texts = window_texts(window)
    assert any("Dashboard" in t for t in texts)
    assert any(r in t for t in texts for r in runs)
    assert any("Best rank" in t for t in texts)


def test_an_adjudicator_settles_three_disagreements_and_the_export_has_them(
    qtbot, tmp_path, make_window, capsys
):
    """Three documents judged differently by ann and bob; the owner opens the adjudication
    tab, sees both grades and notes and an automatic judge's suggestion, decides the three
    by keys, undoes one and decides it again; `export qrels --policy adjudicated` has the
    decisions, and the other documents keep the majority's grade."""
    from live_project import write_project

    from judgeapp.cli import main
    from judgeapp.services.judging import JudgingService
    from judgeapp.services.policy import parse_policy, qrels_rows

    project = write_project(tmp_path / "p")
    db = str(project.db)
    docs = ["D0-001", "D0-002", "D0-003", "D0-004"]
    with Store.open(db) as store:
        ann, bob = JudgingService(store, "ann"), JudgingService(store, "bob")
        for doc, a, b in zip(docs, (2, 0, 1, 2), (0, 3, 1, 1), strict=True):
            ann.record("1", doc, a, note=f"ann on {doc}")
            bob.record("1", doc, b)
    llm = tmp_path / "llm.qrels"
    llm.write_text("1 0 D0-001 2 0.93\n")
    assert main(["import", "judgments", db, str(llm), "--assessor", "llm", "--judge-kind",
                 "automatic"]) == 0  # fmt: skip
    window, controller = make_window()
    open_project(controller, db)
    choose_assessor(controller, "owner")
    adjudication = controller.show_adjudication()
    settled()
    view = adjudication.view
    assert window.tabs.currentWidget() is view
    # D0-003: both said 1 (no disagreement); the other three (and the imported qrels' own
    # disagreements on topic 1, if any) are listed
    listed = {(d.qid, d.docno) for d in view.model.items}
    assert {("1", "D0-001"), ("1", "D0-002"), ("1", "D0-004")} <= listed
    assert ("1", "D0-003") not in listed
    ours = [i for i, d in enumerate(view.model.items) if d.docno in ("D0-001", "D0-002", "D0-004")]
    adjudication.show(ours[0])
    settled()
    assert "ann judged 2: ann on D0-001" in view.votes.text()
    assert "bob judged 0" in view.votes.text()
    assert "suggested by llm: 2 (score 0.93)" in view.votes.text()
    view.show_votes.setChecked(False)
    settled()
    assert "hidden" in view.votes.text() and "ann" not in view.votes.text()
    view.show_votes.setChecked(True)
    settled()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    decisions = {"D0-001": 2, "D0-002": 1, "D0-004": 2}
    for row in ours:
        adjudication.show(row)
        settled()
        docno = view.model.items[row].docno
        qtbot.keyClick(QApplication.focusWidget(), str(decisions[docno]))
        settled()
        assert view.model.items[row].decided == decisions[docno]
    # undo the last decision, then decide it again differently
    controller.undo_stack.undo()
    settled()
    assert view.model.items[ours[-1]].decided is None
    adjudication.show(ours[-1])
    settled()
    qtbot.keyClick(QApplication.focusWidget(), "1")
    settled()
    decisions["D0-004"] = 1
    with Store.open(db) as store:
        rows = {
            (q, d): g
            for q, d, g in qrels_rows(store, policy=parse_policy("adjudicated"))
            if q == "1" and d in docs
        }
        kinds = {a.name: a.kind for a in store.team.assessors()}
    assert rows == {("1", d): g for d, g in decisions.items()} | {("1", "D0-003"): 1}
    assert kinds["adjudication:owner"] == "adjudicator"
    capsys.readouterr()
    assert main(["export", "qrels", db, "--policy", "adjudicated"]) == 0
    exported = {
        tuple(line.split()[i] for i in (0, 2, 3)) for line in capsys.readouterr().out.splitlines()
    }
    for d, g in decisions.items():
        assert ("1", d, str(g)) in exported


def test_the_team_view_shows_progress_pace_flags_and_agreement(qtbot, tmp_path, make_window):
    from live_project import write_project

    from judgeapp.services.judging import JudgingService
    from judgeapp.services.team import assign

    project = write_project(tmp_path / "p")
    db = str(project.db)
    with Store.open(db) as store:
        assign(store, ["1", "2"], ["ann", "bob"], per_topic=1, overlap=1.0, seed=1)
        for name, grades in (("ann", (2, 0, 1)), ("bob", (2, 1, 1))):
            service = JudgingService(store, name)
            for i, g in enumerate(grades):
                service.record(
                    "1", f"D0-00{i}", g, time_spent=10.0 + i, flagged=(name, i) == ("bob", 2)
                )
    _window, controller = make_window()
    open_project(controller, db)
    choose_assessor(controller, "owner")
    team = controller.show_team()
    settled()
    qtbot.waitUntil(lambda: not team.busy, timeout=30_000)
    rows = {r[0]: r for r in team.view.assessor_model.rows}
    assert rows["ann"][1:4] == ["assessor", "2", "3"]
    assert rows["ann"][6] == "11.0"  # median of 10, 11, 12 seconds
    assert rows["ann"][5] == f"{3 / (33 / 3600):.0f}"  # per hour of active time
    assert rows["bob"][7] == "1:2 2:1" and rows["bob"][8] == "1"
    assert team.view.flagged_model.rows == [["bob", "1", "D0-002"]]
    assert team.view.agreement.report is not None
    assert team.view.agreement.report.overall["documents"] == 3
    written = team.view.export_csv(tmp_path / "csv")
    names = {p.name for p in written}
    assert {"team-assessors.csv", "team-progress.csv", "team-flagged.csv"} <= names
    assert (tmp_path / "csv" / "team-flagged.csv").read_text().splitlines() == [
        "Assessor,Topic,Document",
        "bob,1,D0-002",
    ]


def test_the_owner_assigns_topics_in_the_window(qtbot, tmp_path, make_window):
    from live_project import write_project

    from judgeapp.services.pools import PoolService

    project = write_project(tmp_path / "p")
    db = str(project.db)
    with Store.open(db) as store:
        PoolService(store).create_pool("pool", params={"depth": 10})
    window, controller = make_window()
    open_project(controller, db)
    choose_assessor(controller, "owner")
    team = controller.show_team()
    settled()
    dialog = team.show_assign_dialog()
    dialog.topics.setText("1-4")
    dialog.assessors.setText("ann, bob")
    dialog.overlap.setValue(0.5)
    dialog.seed.setValue(2)
    dialog.accept()
    settled()
    with Store.open(db) as store:
        rows = store.team.assignments()
    assert {q for q, _a, _s in rows} == {"1", "2", "3", "4"}
    assert sum(1 for _q, _a, s in rows if s) == 4  # two topics shared, two assessors each
    assert not controller.blind  # the owner sees everything
    # a topic spec that matches nothing says so in the dialog, which stays open
    dialog = team.show_assign_dialog()
    dialog.topics.setText("999")
    dialog.accept()
    settled()
    assert "no topic matches '999'" in dialog.message.text()
    assert dialog.isVisible()
    # the owner has a topic open that is not ann's
    anns = {q for q, a, _s in rows if a == "ann"}
    not_hers = sorted({"1", "2", "3", "4"} - anns)
    assert not_hers
    controller.open_topic(not_hers[0])
    settled()
    assert controller.judging.queue.qid == not_hers[0]
    # ann, opening the project, judges blind, sees her topics first, and is on one of them
    # (issue 30, item 10: she was left on the owner's topic)
    choose_assessor(controller, "ann")
    settled()
    assert controller.blind
    model = window.topics_view.model
    assert {r.qid for r in model.rows() if r.assigned} == anns
    assert controller.judging.queue is not None and controller.judging.queue.qid in anns
    assert f"Topic {not_hers[0]} is not assigned to ann" in window.statusBar().currentMessage()
