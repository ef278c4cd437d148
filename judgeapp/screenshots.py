"""Pictures of the real main window, rendered offscreen to PNG (the README's pictures).

Like `app`, this module sits above the UI and the services: it builds the window the way
`python main.py` does and shows it a prepared copy of a project
(`judgeapp.services.showcase`), so taking a picture never changes the project.

    python main.py screenshot VIEW OUT.png [--db DB]
        [--size WxH] [--scale F]
    python -m judgeapp.screenshots OUT_DIR [--db DB]     # the extra dashboard pictures

The scale factor is Qt's (QT_SCALE_FACTOR, set before Qt starts), so the picture shows the
window as a high-resolution screen does: every widget, font and plot drawn at F times the
pixels, the layout that of a window F times smaller.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from judgeapp.outputs import OutputError, check_writable, replacing
from judgeapp.services import showcase

VIEWS = ("topics", "judging", "search", "dashboard", "team", "agreement", "adjudication")
ASSESSOR = showcase.ASSESSOR


def _wait_until(condition: Callable[[], bool], seconds: float = 60.0) -> None:
    from PySide6.QtWidgets import QApplication

    end = time.monotonic() + seconds
    while not condition() and time.monotonic() < end:
        QApplication.processEvents()
        time.sleep(0.01)


def _settle(seconds: float = 60.0) -> None:
    """Until what the window asked of the project is on screen (judgeapp.ui.ops)."""
    from judgeapp.ui.ops import Ops

    _wait_until(Ops.all_idle, seconds)


def _open_copy(
    db: str | None,
    tmp: Path,
    size: tuple[int, int],
    simulate: int,
    topics: int,
    demo: Callable[[], Path] | None = None,
    campaign: bool = False,
) -> tuple[Any, Any, str | None]:
    """The main window, as `python main.py` builds it, on a prepared copy of `db` (the demo
    project when None); returns (window, controller, topic to show)."""
    from PySide6.QtCore import QSettings

    from judgeapp.app import build_main_window, ensure_app

    ensure_app()
    if db is None:
        if demo is None:
            from judgeapp.demo import ensure_demo_project

            demo = ensure_demo_project
        db = str(demo())
    copy = showcase.copy_project(db, tmp)
    qid = showcase.prepare(copy, simulate, topics)
    if campaign:
        showcase.prepare_campaign(copy)
    settings = QSettings(str(tmp / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue("assessor", ASSESSOR)
    window, controller = build_main_window(settings)
    least = window.minimumSizeHint()
    if size[0] < least.width() or size[1] < least.height():
        window.close()
        raise ValueError(
            f"the window needs at least {least.width()}x{least.height()} of Qt's pixels, "
            f"not {size[0]}x{size[1]} (--size divided by --scale)"
        )
    window.resize(*size)
    window.show()
    controller.open_project(copy)
    _settle()
    return window, controller, qid


def _check_scale(scale: float) -> None:
    """The scale factor must be the one Qt runs at (it is fixed when Qt starts)."""
    from judgeapp.app import ensure_app

    running = ensure_app().primaryScreen().devicePixelRatio()
    if abs(running - scale) > 1e-6:
        raise ValueError(
            f"Qt runs at scale factor {running:g}, not {scale:g}: the factor is set before "
            "Qt starts (QT_SCALE_FACTOR; the screenshot command does so)"
        )


# what Qt's offscreen platform says each time a window is shown, meaning nothing for a
# picture: "This plugin does not support propagateSizeHints()" (a qWarning of no category,
# so QT_LOGGING_RULES cannot single it out)
PLATFORM_NOISE = ("does not support propagateSizeHints()",)


def quiet_platform_noise() -> None:
    """Leave out Qt's PLATFORM_NOISE messages; every other message goes on as before (to the
    handler installed before, or to stderr formatted as Qt formats it)."""
    from PySide6.QtCore import QMessageLogContext, QtMsgType, qFormatLogMessage
    from PySide6.QtCore import qInstallMessageHandler as install

    def handler(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
        if any(noise in message for noise in PLATFORM_NOISE):
            return
        if previous is not None:
            previous(mode, context, message)
        else:
            sys.stderr.write(qFormatLogMessage(mode, context, message) + "\n")

    previous = install(handler)


def _save(window: Any, out: Path) -> Path:
    with replacing(out) as tmp:  # whole or not at all
        if not window.grab().save(str(tmp), "PNG"):
            raise OutputError(f"cannot write {out}: Qt could not save the picture")
    return out


def render(
    view: str,
    out: str | Path,
    db: str | None = None,
    size: tuple[int, int] = (1280, 800),
    simulate: int = 12,
    topics: int = 3,
    demo: Callable[[], Path] | None = None,
    scale: float = 1.0,
) -> Path:
    """Render `view` of project `db` (the demo when None) to the PNG `out`; `size` is the
    window's size in Qt's device-independent pixels, `scale` the scale factor Qt was
    started with (the picture has size x scale pixels)."""
    from PySide6.QtWidgets import QApplication

    from judgeapp.ui.dashboard import find_dashboard

    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r} (one of {', '.join(VIEWS)})")
    quiet_platform_noise()
    _check_scale(scale)
    out = Path(out)
    check_writable(out)  # before the window is built and the copy prepared
    with tempfile.TemporaryDirectory(prefix="judgeapp-shot-") as tmp:
        team_view = view in ("team", "agreement", "adjudication")
        window, controller, qid = _open_copy(
            db, Path(tmp), size, 0 if team_view else simulate, topics, demo, campaign=team_view
        )
        if view == "adjudication":
            adjudication = controller.show_adjudication()
            if adjudication is None:
                window.close()
                raise ValueError("adjudication is for the project's owner and evaluators")
            _settle()
            target = adjudication.view
        elif team_view:
            team = controller.show_team()
            if team is None:
                window.close()
                raise ValueError("the team views are for the project's owner and evaluators")
            _wait_until(lambda: not team.busy)
            target = team.view
            if view == "agreement":
                team.view.tabs.setCurrentWidget(team.view.agreement)
        elif view == "topics":
            target = window.topics_view
            if qid is not None:
                window.topics_view.select_qid(qid)
            _wait_until(controller.estimates_settled)  # the estimates column (a worker)
        elif view == "judging":
            if qid is not None:
                controller.judging.open_topic(qid)
                _settle()
            _wait_until(controller.estimates_settled)  # the estimate line and stop advice
            target = window.judging_view
        elif view == "search":
            target = window.search_view
            if qid is not None:
                _show_search(controller, qid)
        else:
            dashboard = find_dashboard(controller)
            if dashboard is None:
                window.close()
                raise ValueError("the dashboard view does not exist yet")
            target = dashboard.view
        window.show_view(target)
        for _ in range(5):
            QApplication.processEvents()
        prepare = getattr(target, "prepare_screenshot", None)  # the dashboard: wait for its
        if prepare is not None:  # evaluation (a worker) and its plots
            prepare()
        _save(window, out)
        window.close()
        QApplication.processEvents()
    return out


def _show_search(controller: Any, qid: str) -> None:
    """The search panel on topic `qid`: its statement's first content words searched for
    over the whole collection, and the first result the pool missed judged (found by
    search), so that both marks show."""
    from judgeapp.services.search import STOP_WORDS, WORD

    controller.judging.open_topic(qid)
    _settle()
    topic = controller.judging.topic
    words = [w for w in WORD.findall((topic.title if topic else "").lower()) if w not in STOP_WORDS]
    search = controller.search
    search.view.query.setText(" ".join(words[:5]))
    search.search()
    _settle()
    hits = search.view.model.items
    outside = next((k for k, h in enumerate(hits) if not h.pooled and h.grade is None), None)
    if outside is not None:
        search.show(outside)
        _settle()
        search.view.grade_requested.emit(2)  # as the grade key does
        _settle()


def render_more(out_dir: str | Path, db: str | None = None, size=(1280, 800)) -> list[Path]:
    """More pictures of the dashboard than `screenshot dashboard` takes:
    `dashboard-live.png` (one topic in the plots, just after one more judgment, a pooled
    document the imported qrels left unjudged judged relevant: the changed means highlighted
    with their deltas), `dashboard-bounds.png` (the same with the "Bounds" box ticked: each
    mean's low–high once the pool is judged) and `dashboard-drilldown.png` (the per-topic
    values of one run)."""
    from PySide6.QtWidgets import QApplication

    from judgeapp.ui.dashboard import find_dashboard

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory(prefix="judgeapp-shot-") as tmp:
        window, controller, qid = _open_copy(db, Path(tmp), size, 12, 3)
        dashboard = find_dashboard(controller)
        if dashboard is None:
            window.close()
            raise ValueError("the window has no dashboard")
        view = dashboard.view
        window.show_view(view)
        view.prepare_screenshot()
        wb = controller.workbench
        if qid is not None:
            view.topic.setCurrentIndex(view.topic.findData(qid))
            # one more judgment, through the path every judgment takes: a judgment that
            # changes the numbers (one agreeing with the qrels would not)
            doc = showcase.unjudged_pooled_doc(wb.store, wb.pool_name(), qid)
            if doc is not None:
                change = wb.judging.record(qid, doc, 2, origin="screenshot")
                controller.apply_changes(change.changes)
        view.prepare_screenshot()
        _wait_until(lambda: dashboard.ready() and dashboard.analysis_ready())
        written.append(_save(window, out / "dashboard-live.png"))
        view.show_bounds.setChecked(True)
        _wait_until(lambda: dashboard.ready() and dashboard.analysis_ready())
        QApplication.processEvents()
        written.append(_save(window, out / "dashboard-bounds.png"))
        view.show_bounds.setChecked(False)
        best = view.model.labels()[0] if view.model.labels() else None
        if best is not None:
            dashboard.show_drill("run", dashboard.diff_run or best)
            _wait_until(dashboard.ready)
            QApplication.processEvents()
            written.append(_save(window, out / "dashboard-drilldown.png"))
        window.close()
        QApplication.processEvents()
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description="The dashboard's extra README pictures.")
    parser.add_argument("out_dir")
    parser.add_argument("--db", help="project (the demo by default)")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before Qt starts
    for path in render_more(args.out_dir, args.db):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
