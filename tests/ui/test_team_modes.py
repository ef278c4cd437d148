"""Blind mode in the real window: an assessor with assignments sees no dashboard, no run
name, no rank and no estimate anywhere; an evaluator of the same project sees them all."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTabBar,
    QWidget,
)

from judgeapp.store import Store


def choose_assessor(controller, name: str) -> None:
    dialog = controller.show_assessor_dialog()
    dialog.combo.setCurrentText(name)
    dialog.accept()


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
        alices = [q for q, a, _s in store.assignments() if a == "alice"]
    window, controller = make_window()
    controller.open_project(db)
    choose_assessor(controller, "alice")
    assert controller.blind
    controller.open_topic(alices[0])
    for grade in (1, 0, 2):
        controller.judging.view.grade_requested.emit(grade)
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
    texts = window_texts(window)
    assert any("Dashboard" in t for t in texts)
    assert any(r in t for t in texts for r in runs)
    assert any("Best rank" in t for t in texts)
