"""Where save dialogs open: the folder a file of this project was last saved to, else the
user's documents folder (never the folder the program happened to start in).

Kept in the user's settings per project (a folder on this machine means nothing on another
assessor's, so it does not go into the project). Every save dialog of the window (qrels,
dashboard tables and plots, team and agreement tables) goes through `prepare`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths
from PySide6.QtWidgets import QFileDialog

KEY = "save_folders"


class SaveFolders:
    def __init__(self, settings: QSettings, project: Callable[[], str | None]) -> None:
        self.settings = settings
        self.project = project  # the open project's path or URL

    def _all(self) -> dict[str, str]:
        try:
            value = json.loads(str(self.settings.value(KEY, "{}")))
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    def folder(self) -> str:
        """The folder to open a save dialog in for the open project."""
        remembered = self._all().get(self.project() or "")
        if remembered and Path(remembered).is_dir():
            return remembered
        documents = QStandardPaths.writableLocation(
            QStandardPaths.StandardLocation.DocumentsLocation
        )
        if documents and Path(documents).is_dir():
            return documents
        return str(Path.home())

    def remember(self, path: str) -> None:
        """A file (or folder) was saved at `path`: its folder is the project's from now."""
        project = self.project()
        if not project or not path:
            return
        where = Path(path)
        folder = where if where.is_dir() else where.parent
        folders = self._all()
        folders[project] = str(folder)
        self.settings.setValue(KEY, json.dumps(folders))

    def prepare(self, dialog: QFileDialog, name: str | None = None) -> QFileDialog:
        """Open `dialog` in the project's folder (with `name` proposed) and remember the
        folder it saves to."""
        dialog.setDirectory(self.folder())
        if name:
            dialog.selectFile(name)
        dialog.fileSelected.connect(self.remember)
        return dialog
