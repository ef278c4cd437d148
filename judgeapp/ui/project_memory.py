"""What this computer remembers of the projects opened in the window (QSettings): the
recent projects, the one used last, and who judged in each, so that a project reopens with
its own assessor."""

from __future__ import annotations

import getpass
import json
from collections.abc import Callable

from PySide6.QtCore import QSettings

from judgeapp.services.workbench import Workbench

MAX_RECENT = 8


class ProjectMemory:
    def __init__(self, settings: QSettings) -> None:
        self.settings = settings

    def last_project(self) -> str | None:
        last = self.settings.value("last_project")
        return str(last) if last else None

    def recent(self) -> list[str]:
        try:
            value = json.loads(str(self.settings.value("recent_projects", "[]")))
        except ValueError:
            return []
        return [str(v) for v in value] if isinstance(value, list) else []

    def remember_project(self, db: str) -> None:
        recent = [p for p in self.recent() if p != db]
        recent.insert(0, db)
        self.settings.setValue("recent_projects", json.dumps(recent[:MAX_RECENT]))
        self.settings.setValue("last_project", db)

    def assessors_by_project(self) -> dict[str, str]:
        try:
            value = json.loads(str(self.settings.value("assessors_by_project", "{}")))
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    def remember_assessor(self, path: str, name: str | None) -> None:
        if not name:
            return
        by_project = self.assessors_by_project()
        by_project[path] = name
        self.settings.setValue("assessors_by_project", json.dumps(by_project))
        self.settings.setValue("assessor", name)

    def assessor_chooser(self) -> Callable[[Workbench], str]:
        """`assessor_for(workbench)`, with what is remembered now (read on the GUI thread,
        used in the worker that opens a project)."""
        by_project = self.assessors_by_project()
        fallback = self.settings.value("assessor")
        return lambda workbench: assessor_for(workbench, by_project, fallback)


def assessor_for(workbench: Workbench, by_project: dict[str, str], fallback: object) -> str:
    """Who judges when a project opens: the assessor remembered for it, else the one
    chosen last anywhere (unless that name is an imported qrels source here), else the
    login name. A team member's role judges as its own assessor only."""
    connected = workbench.connected_as()
    if connected is not None:
        return connected
    name = by_project.get(workbench.path) or fallback
    if name and name not in workbench.persons() and name in workbench.sources():
        name = None
    return str(name) if name else login_name()


def login_name() -> str:
    try:
        return getpass.getuser() or "assessor"
    except Exception:
        return "assessor"
