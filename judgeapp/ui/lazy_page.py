"""A tab page built the first time it is shown.

A table view (its headers, scroll bars and viewport) costs the GUI thread time to build,
polish and lay out, and a view of eight tables several times that (40 ms when the window
had a style sheet), a visible stall when the interpreter lock is shared with a busy
worker. Pages a user may never open (the team view's flagged
documents, the agreement's confusion matrix) are built when their tab is first chosen.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QVBoxLayout, QWidget


class LazyPage(QWidget):
    """Holds the place of the widget `build` makes, and makes it when first shown (or when
    `page()` asks for it)."""

    def __init__(self, build: Callable[[], QWidget], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._build = build
        self._page: QWidget | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)

    @property
    def built(self) -> bool:
        return self._page is not None

    def page(self) -> QWidget:
        if self._page is None:
            self._page = self._build()
            if not self._page.accessibleName():
                self._page.setAccessibleName(self.accessibleName())
            layout = self.layout()
            assert layout is not None
            layout.addWidget(self._page)
        return self._page

    def showEvent(self, event: QShowEvent) -> None:
        self.page()
        super().showEvent(event)
