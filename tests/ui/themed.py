"""A widget shown in the window's own look, for tests that compare what it paints."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QWidget

from judgeapp.ui import theme
from judgeapp.ui.style import Style


def show_themed(qtbot, widget: QWidget, width: int, height: int) -> QWidget:
    """`widget` at width x height on screen in the window's theme and style (as
    `python main.py` sets them, and test_looks.py checks them), closed with the test."""
    theme.apply_theme(QApplication.instance())
    assert isinstance(QApplication.style(), Style)
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    return widget
