"""Open the real window as `run_gui` does, on a screen of a given size and scale factor,
and print (JSON) where it opened and whether the judging view's grade buttons and the
status bar are wholly on that screen; then close it (its geometry saved) and open it again.

Run by tests/ui/test_fits_the_screen.py in a child process: the screen's size (Qt's
offscreen platform, configured by a file) and the scale factor (QT_SCALE_FACTOR) are fixed
when Qt starts.

    python -m tests.ui.fit_probe WIDTHxHEIGHT SCALE PROJECT SETTINGS [PNG] [--resize WxH]
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path


def main(argv: list[str]) -> int:
    size, scale, db, settings_path = argv[:4]
    rest = argv[4:]
    resize = None
    if "--resize" in rest:
        i = rest.index("--resize")
        resize = tuple(int(v) for v in rest[i + 1].split("x"))
        rest = rest[:i] + rest[i + 2 :]
    png = rest[0] if rest else None
    width, height = (int(v) for v in size.split("x"))
    screen = {
        "screens": [
            {
                "name": "probe",
                "x": 0,
                "y": 0,
                "width": width,
                "height": height,
                "logicalDpi": 96,
                "logicalBpi": 96,
                "dpr": 1,
            }
        ]
    }
    config = Path(tempfile.mkdtemp(prefix="judgeapp-screen-")) / "screen.json"
    config.write_text(json.dumps(screen))
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"
    os.environ["QT_SCALE_FACTOR"] = scale

    from PySide6.QtCore import QRect, QSettings

    from judgeapp.app import build_main_window, ensure_app
    from tests.ui.waiting import settled

    ensure_app()
    settings = QSettings(settings_path, QSettings.Format.IniFormat)
    window, controller = build_main_window(settings)
    controller.restore_geometry()  # as run_gui does, before the window is shown
    window.show()
    controller.open_project(db)
    settled()
    controller.open_topic("1")
    settled()
    available = window.screen().availableGeometry()

    def on_screen(widget) -> bool:
        """Shown, not clipped by its parents, and wholly on the screen's free area."""
        top_left = widget.mapToGlobal(widget.rect().topLeft())
        where = QRect(top_left, widget.size())
        whole = widget.visibleRegion().boundingRect() == widget.rect()
        return widget.isVisible() and whole and available.contains(where)

    view = window.judging_view
    report = {
        "available": [available.width(), available.height()],
        "geometry": [window.x(), window.y(), window.width(), window.height()],
        "dpr": window.devicePixelRatio(),
        "judging_shown": window.tabs.currentWidget() is view,
        "grade_buttons": [on_screen(b) for b in view.grade_bar.buttons.values()],
        "status_bar": on_screen(window.statusBar()),
    }
    if png:
        window.grab().save(png)
    if resize is not None:
        window.resize(*resize)
    window.close()  # saves the geometry
    window2, controller2 = build_main_window(settings)
    controller2.restore_geometry()
    window2.show()
    report["reopened"] = [window2.x(), window2.y(), window2.width(), window2.height()]
    window2.close()
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
