"""A blind assessor's window, walked whole: every menu and its actions (text, tool tip,
status tip, whether enabled), every dialog an enabled action opens, every tool tip and cell
of every view, the status bar after each step, the judging list of her shared topic. Nothing
may show another assessor's grade or note, a run's name or rank, or offer an export of every
judgment. On SQLite she chose her name (a label); on PostgreSQL she connects with her own
role, and then not even another person's name appears: the server shows her none."""

from __future__ import annotations

import uuid

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QDialog,
    QFileDialog,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTabBar,
    QTextEdit,
    QWidget,
)
from sqlalchemy.engine import make_url

from judgeapp.services.judging import JudgingService
from judgeapp.services.pools import PoolService
from judgeapp.store import Store
from tests.ui.waiting import open_project, settled

SECRET = "bob-secret-note"


def texts_of(root: QWidget) -> list[str]:
    """What `root` and its children show: titles, labels, buttons, fields, combo items,
    tabs, tool tips, status tips, and every header and cell (display and tool tip) of every
    visible column of every view. A file dialog's list of files is the user's file system,
    not the project: left out."""
    texts = [root.windowTitle(), root.toolTip()]
    widgets = [root, *root.findChildren(QWidget)]
    dialogs = [w for w in widgets if isinstance(w, QFileDialog)]
    for w in widgets:
        if any(d is not w and d.isAncestorOf(w) for d in dialogs):
            continue
        texts += [w.toolTip(), w.statusTip(), w.accessibleName(), w.whatsThis()]
        if isinstance(w, QLabel | QAbstractButton):
            texts.append(w.text())
        elif isinstance(w, QLineEdit):
            texts += [w.text(), w.placeholderText()]
        elif isinstance(w, QTextEdit | QPlainTextEdit):
            texts.append(w.toPlainText())
        elif isinstance(w, QComboBox):
            texts += [w.itemText(i) for i in range(w.count())]
        elif isinstance(w, QTabBar):
            texts += [w.tabText(i) for i in range(w.count())]
            texts += [w.tabToolTip(i) for i in range(w.count())]
        elif isinstance(w, QAbstractItemView) and not isinstance(w, QHeaderView) and w.model():
            model = w.model()
            root_index = QModelIndex()
            try:
                n_columns = model.columnCount(root_index)
            except TypeError:
                n_columns = 1
            hidden = getattr(w, "isColumnHidden", lambda _c: False)
            for c in (c for c in range(n_columns) if not hidden(c)):
                for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                    texts.append(str(model.headerData(c, Qt.Orientation.Horizontal, role) or ""))
                for r in range(model.rowCount(root_index)):
                    for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                        texts.append(str(model.index(r, c).data(role) or ""))
    return [t for t in texts if t]


def menu_texts(window) -> tuple[list[str], dict[str, bool]]:
    """Every action of every menu (submenus too): its texts, and whether it is enabled."""
    texts: list[str] = []
    enabled: dict[str, bool] = {}
    menus = [a.menu() for a in window.menuBar().actions() if a.menu() is not None]
    while menus:
        menu = menus.pop()
        menu.aboutToShow.emit()  # menus filled as they open (pools, recent projects)
        texts.append(menu.title())
        for action in menu.actions():
            if action.menu() is not None:
                menus.append(action.menu())
            if action.isSeparator() or not action.isVisible():
                continue
            texts += [action.text(), action.toolTip(), action.statusTip(), action.whatsThis()]
            enabled[action.text()] = action.isEnabled()
    return [t for t in texts if t], enabled


@pytest.fixture
def blind_project(tmp_path, project_db, request):
    """The live project (six runs, a qrels source) with a depth-10 pool in an adaptive
    order; alice and bob assigned, topic 1 shared; bob's grade and note on a document of
    topic 1. Returns (what the window opens, alice's name, the run names)."""
    from live_project import SOURCE, write_project

    project = write_project(tmp_path / "inputs", db=project_db)
    db = str(project.db)
    with Store.open(db) as store:
        PoolService(store).create_pool("pool", params={"depth": 10}, judging_order="mtf")
        store.team.set_assignments(
            [
                ("1", "alice", True),
                ("1", "bob", True),
                ("2", "alice", False),
                ("3", "bob", False),
                ("4", "bob", False),
            ]
        )
        pooled = sorted(store.pools.doc_ids("pool", ["1"])["1"].tolist())
        docno = store.documents.docnos_of([pooled[0]])[pooled[0]]
        JudgingService(store, "bob").record("1", docno, 3, note=SECRET)
        if store.dialect == "postgresql":
            tag = uuid.uuid4().hex[:8]
            role, password = store.team.add_member("alice", role=f"alice_{tag}")
            store.team.add_member("bob", role=f"bob_{tag}")
            server = request.getfixturevalue("pg_server")
            db = server.url(db.rsplit("/", 1)[1], user=role, password=password)
    return db, docno, [*project.runs, SOURCE]


def test_a_blind_assessors_window_walked_whole_shows_nothing_of_others(
    qtbot, make_window, blind_project
):
    db, bobs_doc, hidden_names = blind_project
    on_server = "://" in db and not db.startswith("sqlite")
    password = make_url(db).password if on_server else None
    window, controller = make_window()
    open_project(controller, db)
    if not on_server:  # a label on a file: she says who she is
        dialog = controller.show_assessor_dialog()
        dialog.combo.setCurrentText("alice")
        dialog.accept()
        settled()
    assert controller.workbench.assessor == "alice" and controller.blind
    seen: dict[str, list[str]] = {}
    seen["window"] = [*texts_of(window), window.statusBar().currentMessage()]
    menus, enabled = menu_texts(window)
    seen["menus"] = menus
    # the exports: only her own judgments
    export_all = next(t for t in enabled if "all judgments" in t)
    assert enabled[export_all] is False
    assert enabled[next(t for t in enabled if "my judgments" in t)] is True
    for name in (
        "build_pool",
        "import_runs",
        "import_qrels",
        "adjudicate",
        "team",
        "scale",
        "stop_target",
    ):
        assert not window.actions_by_name[name].isEnabled(), name
    for name in ("import_topics", "import_documents"):  # the owner's, on a server
        assert window.actions_by_name[name].isEnabled() is not on_server, name
    window.actions_by_name["export_qrels"].trigger()  # disabled: nothing opens
    assert controller.file_dialog is None
    # her shared topic in the judging view: bob's judged document shows no grade, no mark
    controller.open_topic("1")
    settled()
    queue = controller.judging.queue
    assert queue is not None and queue.qid == "1"
    item = next(i for i in queue.items if i.docno == bobs_doc)
    assert item.grade is None and item.others == 0 and item.best_rank is None and item.runs == ()
    for grade in (1, 0, 2):
        controller.judging.view.grade_requested.emit(grade)
        settled()
    seen["judging"] = [*texts_of(window), window.statusBar().currentMessage()]
    # every enabled action that opens something, and what it opens
    for name, action in window.actions_by_name.items():
        if not action.isEnabled() or name in ("quit", "open_demo"):
            continue
        before = {id(w) for w in QApplication.topLevelWidgets() if w.isVisible()}
        action.trigger()
        qtbot.wait(50)
        settled()
        opened = [
            w
            for w in QApplication.topLevelWidgets()
            if w.isVisible() and id(w) not in before and w is not window
        ]
        seen[f"action {name}"] = [window.statusBar().currentMessage()]
        for w in opened:
            seen[f"action {name}"] += texts_of(w)
            if isinstance(w, QDialog):
                w.reject()
            else:
                w.close()
    # the views of every tab the window holds, shown in turn
    for i in range(window.tabs.count()):
        window.tabs.setCurrentIndex(i)
        qtbot.wait(20)
        settled()
        seen[f"tab {window.tabs.tabText(i)}"] = texts_of(window)
    found = []
    for where, texts in seen.items():
        for text in texts:
            low = text.lower()
            if (
                SECRET in text
                or any(n in text for n in hidden_names)
                or "best rank" in low
                or "dashboard" in low
                or ("all judgments" in low and where != "menus")
                or (on_server and "bob" in low)
                or (password is not None and password in text)  # her role's credential
            ):
                found.append((where, text[:120]))
    assert found == [], found
    assert sum(len(t) for t in seen.values()) > 300  # the walk saw the window
