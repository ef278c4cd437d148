"""Projects and setup (issue 15): `python main.py PROJECT` opens it, a relaunch reopens the
last project, no display is said plainly, the pool dialog chooses topics and warns about
documents without text, Enter imports, menus have distinct mnemonics, and save dialogs
open in a folder remembered per project."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMenu

from judgeapp import app as app_module
from judgeapp.cli import main, project_argument
from tests.ui.waiting import open_project, settled


def test_a_project_named_on_the_command_line_opens_in_the_window(tmp_path, monkeypatch, capsys):
    opened = []
    monkeypatch.setattr(app_module, "run_gui", lambda db=None: opened.append(db) or 0)
    db = tmp_path / "robust.db"
    # a path with nothing there (mistyped?) is refused: `init` creates a project
    assert main([str(db)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"judgeapp: error: no project at {db}; nothing was created"), err
    assert f"`init {db}`" in err and not db.exists() and opened == []
    assert main(["init", str(db)]) == 0 and db.is_file()
    assert main([str(db)]) == 0
    url = "postgresql+psycopg://alice@db.example.org/robust"
    assert main([url]) == 0
    existing = tmp_path / "project"
    existing.write_bytes(b"")
    assert main([str(existing)]) == 0
    assert main([]) == 0  # no argument: the last project (or the demo)
    assert opened == [str(db), url, str(existing), None]
    commands = {"info", "pool"}
    assert project_argument(["info"], commands) is None
    assert project_argument(["--version"], commands) is None
    assert project_argument(["a.db", "b.db"], commands) is None
    assert project_argument(["nothing-like-a-project"], commands) is None


def test_a_relaunch_reopens_the_last_project(tmp_path, make_window):
    db = str(tmp_path / "last.db")
    window, controller = make_window()
    open_project(controller, db, create=True)
    window.close()
    window2, controller2 = make_window()
    assert controller2.reopen_last()
    settled()
    assert controller2.workbench is not None and controller2.workbench.path.endswith("last.db")
    # a project moved away since: nothing reopened (the demo opens instead)
    window2.close()
    (tmp_path / "last.db").rename(tmp_path / "moved.db")
    _window3, controller3 = make_window()
    assert not controller3.reopen_last() and controller3.workbench is None


def test_each_data_folder_remembers_its_own_last_project(tmp_path, qtbot, monkeypatch):
    """Two people on one account, each with a JUDGEAPP_DATA_DIR of their own: the window's
    settings (the project used last, recent projects) live in that folder, so neither
    reopens the other's project (issue 30, item 11)."""
    from judgeapp.app import build_main_window, ensure_app

    ensure_app()

    def launch(person):
        monkeypatch.setenv("JUDGEAPP_DATA_DIR", str(tmp_path / person))
        window, controller = build_main_window()  # the settings run_gui uses
        qtbot.addWidget(window)
        return window, controller

    window, controller = launch("ann")
    open_project(controller, str(tmp_path / "ann.db"), create=True)
    window.close()
    controller.settings.sync()
    assert "ann.db" in (tmp_path / "ann" / app_module.SETTINGS_FILE).read_text()
    window, controller = launch("bob")
    assert not controller.reopen_last() and controller.workbench is None  # not Ann's
    open_project(controller, str(tmp_path / "bob.db"), create=True)
    window.close()
    controller.settings.sync()
    for person in ("ann", "bob"):
        window, controller = launch(person)
        assert controller.reopen_last()
        settled()
        assert controller.workbench.path.endswith(f"{person}.db")
        assert controller.memory.recent() == [str(tmp_path / f"{person}.db")]
        window.close()
    monkeypatch.delenv("JUDGEAPP_DATA_DIR")
    native = app_module.window_settings()  # no data folder named: Qt's place, as before
    assert native.format() == native.Format.NativeFormat
    assert native.applicationName() == "judgeapp"


@pytest.mark.parametrize(
    ("environ", "platform", "expected"),
    [
        ({}, "linux", "no display"),
        ({"DISPLAY": ":0"}, "linux", None),  # libxcb-cursor checked on this machine below
        ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", None),
        ({"QT_QPA_PLATFORM": "offscreen"}, "linux", None),
        ({}, "win32", None),
        ({}, "darwin", None),
    ],
)
def test_without_a_display_the_window_says_so_plainly(environ, platform, expected, monkeypatch):
    import ctypes

    monkeypatch.setattr(ctypes, "CDLL", lambda name: None)  # the library is there
    problem = app_module.display_problem(environ, platform)
    if expected is None:
        assert problem is None
    else:
        assert problem.startswith(expected) and "--help" in problem


def test_a_missing_xcb_cursor_library_is_named(monkeypatch):
    import ctypes

    def missing(name):
        raise OSError(f"{name}: cannot open shared object file")

    monkeypatch.setattr(ctypes, "CDLL", missing)
    problem = app_module.display_problem({"DISPLAY": ":0"}, "linux")
    assert "libxcb-cursor0" in problem and "apt install" in problem


def test_run_gui_without_a_display_prints_why_and_fails(monkeypatch, capsys):
    monkeypatch.setattr(app_module, "display_problem", lambda: "no display: test")
    assert app_module.run_gui() == 2
    assert "cannot open the window: no display: test" in capsys.readouterr().err


def test_every_menu_has_distinct_mnemonics(make_window):
    window, _controller = make_window()

    def mnemonics(menu: QMenu) -> list[str]:
        letters = []
        for action in menu.actions():
            text = action.text()
            if "&" in text.replace("&&", ""):
                letters.append(text[text.index("&") + 1].lower())
        return letters

    bar = window.menuBar()
    assert len(set(mnemonics(bar))) == len(mnemonics(bar))
    for action in bar.actions():
        letters = mnemonics(action.menu())
        assert len(set(letters)) == len(letters), (action.text(), letters)
    project = window.menuBar().actions()[0].menu()
    texts = {a.text() for a in project.actions()}
    assert "&Quit" in texts and "Import qre&ls…" in texts


def test_enter_in_the_import_dialog_imports(tmp_path, qtbot, make_window):
    topics = tmp_path / "t.tsv"
    topics.write_text("1\tfirst topic\n2\tsecond topic\n")
    _window, controller = make_window()
    open_project(controller, str(tmp_path / "p.db"), create=True)
    dialog = controller.show_import("topics")
    dialog.files.add_paths([str(topics)])
    # the focus on "Add files…" (it was just used): Enter starts the import all the same
    from PySide6.QtWidgets import QPushButton

    [add] = [b for b in dialog.files.findChildren(QPushButton) if "Add files" in b.text()]
    add.setFocus()
    with qtbot.waitSignal(controller.task_finished, timeout=30_000):
        qtbot.keyClick(add, Qt.Key.Key_Return)
    settled()
    assert dialog.files.file_dialog is None  # no file chooser opened
    assert len(controller.workbench.topics()) == 2


def test_save_dialogs_open_in_a_folder_remembered_per_project(tmp_path, qtbot, make_window):
    from PySide6.QtCore import QStandardPaths

    _window, controller = make_window()
    open_project(controller, str(tmp_path / "a.db"), create=True)
    dialog = controller.show_export_dialog()
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    first = dialog.directory().absolutePath()
    assert first != str(tmp_path) and first in (documents, str(__import__("pathlib").Path.home()))
    out = tmp_path / "exports" / "a.qrels"
    out.parent.mkdir()
    dialog.selectFile(str(out))
    dialog.accept()
    settled()
    qtbot.waitUntil(out.exists)
    again = controller.show_export_dialog()
    assert again.directory().absolutePath() == str(out.parent)
    again.reject()
    # another project has its own folder
    open_project(controller, str(tmp_path / "b.db"), create=True)
    other = controller.show_export_dialog()
    assert other.directory().absolutePath() == first
    other.reject()


def test_the_pool_dialog_chooses_topics_and_warns_about_missing_texts(tmp_path, qtbot, make_window):
    topics = tmp_path / "t.tsv"
    topics.write_text("".join(f"{q}\ttopic {q}\n" for q in range(1, 6)))
    run = tmp_path / "r.run"
    run.write_text("".join(f"{q} Q0 d{q}-{i} {i} {10 - i} r\n" for q in (1, 2, 3) for i in (1, 2)))
    docs = tmp_path / "docs.tsv"
    docs.write_text("d1-1\ttext\nd1-2\ttext\n")  # only topic 1's documents have text
    window, controller = make_window()
    open_project(controller, str(tmp_path / "p.db"), create=True)
    wb = controller.workbench
    for kind, path in (("topics", topics), ("runs", run), ("documents", docs)):
        controller.apply_changes(wb.import_files(kind, [path]).changes)
    settled()  # the window reads what the imports changed
    dialog = controller.show_pool_dialog()
    assert "3 of the project's 5 topics" in dialog.topics_hint.text()
    dialog.topics.setText("9")
    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    settled()
    assert "no topic matches '9'" in dialog.message.text()
    dialog.topics.setText("1-2")
    with qtbot.waitSignal(controller.task_finished, timeout=30_000):
        qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    settled()
    assert wb.store.pools.sizes(wb.pool_name()) == {"1": 2, "2": 2}
    assert "2 of the 4 pooled documents" in controller.last_warning
    # the topic list shows the pooled topics only, and says how many there are
    view = window.topics_view
    assert view.pooled_only.isChecked() and view.proxy.rowCount() == 2
    assert "5 topics (2 with a pool, the others hidden)" in view.summary.text()
    view.pooled_only.setChecked(False)
    settled()
    assert view.proxy.rowCount() == 5
    QApplication.processEvents()


def test_the_window_makes_full_passes_of_the_cycle_collector_rare(make_window):
    """A full pass walks every object not frozen (40-200 ms of the GUI thread once a
    project is open): the window's process starts one after YOUNG_PASSES_PER_FULL young
    passes, not Python's 10; the young generations keep their thresholds."""
    import gc

    from judgeapp.lasting import YOUNG_PASSES_PER_FULL

    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        make_window()
        assert gc.get_threshold() == (700, 10, YOUNG_PASSES_PER_FULL)
    finally:
        gc.set_threshold(*before)
