"""Text from files and users is shown as text: a title `<img src="file:///etc/passwd">` or
`<b>` shows literally in tooltips, labels and message boxes (Qt would otherwise take it for
HTML, render the markup and load the image). And a damaged project is refused with a
message box naming it, not opened."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QMessageBox

from judgeapp.cli import main
from tests.ui.waiting import open_project, settled

HOSTILE = '<img src="file:///etc/passwd"><b>bold</b> & more'


def shown(tip: str) -> str:
    """What a tooltip shows: Qt renders tooltip text that looks like HTML as rich text."""
    document = QTextDocument()
    document.setHtml(tip)
    return document.toPlainText()


def hostile_project(tmp_path: Path) -> str:
    db = str(tmp_path / "p.db")
    topics = tmp_path / "topics.jsonl"
    topics.write_text(json.dumps({"qid": "401", "title": HOSTILE}) + "\n")
    docs = tmp_path / "docs.jsonl"
    docs.write_text(
        json.dumps({"docno": "D1", "title": HOSTILE, "text": "body", "authors": "<b>A</b>"}) + "\n"
    )
    run = tmp_path / "a.run"
    run.write_text("401 Q0 D1 1 2.0 a\n")
    for argv in (
        ["init", db],
        ["import", "topics", db, str(topics)],
        ["import", "docs", db, str(docs)],
        ["import", "run", db, str(run)],
        ["pool", db, "--depth", "10"],
    ):
        assert main(argv) == 0
    return db


def test_titles_authors_and_notes_show_literally(tmp_path, qtbot, make_window):
    db = hostile_project(tmp_path)
    window, controller = make_window()
    open_project(controller, db)
    model = window.topics_view.model
    tip = model.data(model.index(0, model.TITLE), Qt.ItemDataRole.ToolTipRole)
    assert shown(tip) == HOSTILE
    assert "<img" not in rendered_html(tip)

    assert controller.judging.open_topic("401")
    viewer = window.judging_view.viewer
    qtbot.waitUntil(lambda: viewer.doc_id is not None)
    assert shown(viewer.header.toolTip()) == f"D1  ·  {HOSTILE}"
    assert shown(viewer.meta.toolTip()) == "<b>A</b>"
    panel = window.judging_view.topic_panel
    assert panel.title.textFormat() == Qt.TextFormat.PlainText
    assert HOSTILE in panel.title.text()


def rendered_html(tip: str) -> str:
    """The document Qt builds from a tooltip holds no image element."""
    document = QTextDocument()
    document.setHtml(tip)
    return document.toHtml()


def test_the_import_dialog_quotes_a_bad_line_as_text(tmp_path, qtbot, make_window):
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 d1 1 2.5 tag\n1 Q0 d2 2 <b>bold</b> tag\n")
    _window, controller = make_window()
    open_project(controller, str(tmp_path / "e.db"), create=True)
    dialog = controller.show_import("runs")
    dialog.files.add_paths([str(bad)])
    with qtbot.waitSignal(controller.task_finished, timeout=30_000):
        qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    settled()
    assert dialog.message.textFormat() == Qt.TextFormat.PlainText
    assert "bad.run:2: score '<b>bold</b>' is not a number" in dialog.message.text()


def _box(window) -> QMessageBox:
    [box] = [b for b in window.findChildren(QMessageBox) if b.isVisible()]
    return box


def test_a_damaged_project_is_refused_in_a_plain_message_box(
    tmp_path, qtbot, make_window, monkeypatch
):
    """A project left damaged by a crash (its session mark says a check is due): the window
    opens it without reading it through, checks it in the background before the first
    judgment, and says so in a plain message box naming the file (a name that looks like
    HTML stays text); nothing is written to it."""
    from judgeapp.store.files import CHECK_DUE, SESSION_SUFFIX

    db = Path(hostile_project(tmp_path))
    damaged = tmp_path / "<b>damaged.db"  # a file name that looks like HTML
    data = bytearray(db.read_bytes())
    data[3 * 4096 : 5 * 4096] = bytes(range(256)) * 32  # two pages overwritten
    damaged.write_bytes(bytes(data))
    Path(f"{damaged}{SESSION_SUFFIX}").write_bytes(CHECK_DUE)  # what a crash leaves
    before = damaged.read_bytes()
    window, controller = make_window()
    controller.open_project(str(damaged))
    settled()  # refused when it opened (its first write checks it), or by the check after
    box = _box(window)
    assert box.textFormat() == Qt.TextFormat.PlainText
    assert f"{damaged}: the project file is damaged" in box.text()
    assert damaged.read_bytes() == before
    box.close()

    text_file = tmp_path / "notes.db"
    text_file.write_text("<img src='file:///etc/passwd'> not a project\n")
    open_project(controller, str(text_file))
    box = _box(window)
    assert box.textFormat() == Qt.TextFormat.PlainText
    assert "not a judgeapp project" in box.text()
    box.close()
