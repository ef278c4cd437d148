"""Text from users and files shown as text, never as HTML.

Qt takes the text of a label, a message box or a tooltip for HTML when it looks like HTML
(`Qt.mightBeRichText`): a document titled `<img src="file:///etc/passwd">` would load that
file as an image, and `<b>` would turn bold. Labels and message boxes showing such text are
set to `Qt.TextFormat.PlainText` (`plain`); a tooltip has no such setting, so its text is
escaped and wrapped in a paragraph that keeps line breaks (`tooltip`).
"""

from __future__ import annotations

import html
from typing import TypeVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox

W = TypeVar("W", QLabel, QMessageBox)


def plain(widget: W) -> W:
    """`widget` showing its text literally."""
    widget.setTextFormat(Qt.TextFormat.PlainText)
    return widget


def tooltip(text: str | None) -> str | None:
    """A tooltip that shows `text` literally (None and "" stay as they are: no tooltip)."""
    if not text:
        return text
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>"
