"""TextLine: the label for text that changes with every judgment."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWidget

from judgeapp.ui.text_line import TextLine
from tests.ui.waiting import open_project, settled  # noqa: F401

LONG = "Document 1234 · " + " ".join(f"word{i}" for i in range(60))


class LayoutRequests(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, _obj, event) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self.count += 1
        return False


def host(qtbot, child: QWidget) -> tuple[QWidget, LayoutRequests]:
    parent = QWidget()
    qtbot.addWidget(parent)
    layout = QVBoxLayout(parent)
    layout.addWidget(child)
    layout.addStretch(1)
    parent.resize(300, 200)
    parent.show()
    settled()
    qtbot.waitExposed(parent)
    QApplication.processEvents()
    requests = LayoutRequests()
    parent.installEventFilter(requests)
    return parent, requests


def test_new_text_asks_no_layout_pass_where_a_qlabel_does(qtbot):
    line = TextLine()
    _parent, requests = host(qtbot, line)
    height = line.sizeHint().height()
    for i in range(10):
        line.setText(f"{i} of 3700 judged · {'x' * i}")
        QApplication.processEvents()
    assert requests.count == 0 and line.sizeHint().height() == height
    assert line.text() == "9 of 3700 judged · xxxxxxxxx"

    label = QLabel()  # what TextLine replaces: every setText relayouts the parent
    _parent, requests = host(qtbot, label)
    for i in range(10):
        label.setText(f"{i} of 3700 judged · {'x' * i}")
        QApplication.processEvents()
    assert requests.count > 0


def test_text_wraps_at_words_and_elides_the_last_line(qtbot):
    line = TextLine(lines=2)
    _parent, _ = host(qtbot, line)
    line.setText("short title")
    assert line.visible_lines() == ["short title"]
    line.setText(LONG)
    first, second = line.visible_lines()
    assert LONG.startswith(first) and first.endswith(first.split()[-1])
    assert second.endswith("…")
    shown = f"{first} {second[:-1]}".rstrip()
    assert LONG.startswith(shown) and len(shown) < len(LONG)
    metrics = line.fontMetrics()
    width = line.contentsRect().width()
    assert all(metrics.horizontalAdvance(text) <= width for text in (first, second))
    assert line.height() == line.sizeHint().height() == 2 * metrics.lineSpacing() + 2


def test_one_line_elides(qtbot):
    line = TextLine()
    _parent, _ = host(qtbot, line)
    line.setText(LONG)
    [only] = line.visible_lines()
    assert only.endswith("…") and LONG.startswith(only[:-1])
    line.setText("")
    assert line.visible_lines() == []
