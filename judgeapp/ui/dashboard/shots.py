"""More pictures of the dashboard than `python main.py screenshot dashboard` takes:

    python -m judgeapp.ui.dashboard.shots OUT_DIR [--db DB]

writes `dashboard-live.png` (one topic in the plots, just after one more judgment, a
pooled document the imported qrels left unjudged judged relevant: the changed means
highlighted with their deltas) and `dashboard-drilldown.png` (the per-topic
values of one run). Like `screenshot`, it works on a copy of the project (the demo by
default), pooled and partly judged from its imported qrels the same way.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path


def _wait(app, condition, seconds: float = 60.0) -> None:
    import time

    end = time.perf_counter() + seconds
    while not condition() and time.perf_counter() < end:
        app.processEvents()


def render_more(out_dir: str | Path, db: str | None = None, size=(1280, 800)) -> list[Path]:
    from PySide6.QtCore import QSettings

    from judgeapp.app import build_main_window, ensure_app
    from judgeapp.services.judging import JudgingService
    from judgeapp.ui import screenshot
    from judgeapp.ui.dashboard import find_dashboard

    app = ensure_app()
    if db is None:
        from judgeapp.demo import ensure_demo_project

        db = str(ensure_demo_project())
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory(prefix="judgeapp-shot-") as tmp:
        copy = screenshot._copy_project(db, Path(tmp))
        qid = screenshot._prepare(copy, 12, 3)
        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
        settings.setValue("assessor", screenshot.ASSESSOR)
        window, controller = build_main_window(settings)
        window.resize(*size)
        window.show()
        controller.open_project(copy)
        dashboard = find_dashboard(controller)
        view = dashboard.view
        window.show_view(view)
        view.prepare_screenshot()
        wb = controller.workbench
        if qid is not None:
            view.topic.setCurrentIndex(view.topic.findData(qid))
            # one more judgment, through the path every judgment takes
            # a pooled document the imported qrels left unjudged, judged relevant: a
            # judgment that changes the numbers (one agreeing with the qrels would not)
            judged = {j.doc_id for j in wb.store.judgments(qid)}
            pooled = [int(d) for d in wb.store.pool_topic(wb.pool_name(), qid).doc_ids]
            doc = next((d for d in pooled if d not in judged), None)
            if doc is not None:
                change = JudgingService(wb.store, screenshot.ASSESSOR).record(
                    qid, doc, 2, origin="screenshot"
                )
                controller.apply_changes(change.changes)
        view.prepare_screenshot()
        _wait(app, lambda: dashboard.ready() and dashboard.analysis_ready())
        path = out / "dashboard-live.png"
        window.grab().save(str(path), "PNG")
        written.append(path)
        best = view.model.labels()[0] if view.model.labels() else None
        if best is not None:
            dashboard.show_drill("run", dashboard.diff_run or best)
            _wait(app, dashboard.ready)
            app.processEvents()
            path = out / "dashboard-drilldown.png"
            window.grab().save(str(path), "PNG")
            written.append(path)
        window.close()
        app.processEvents()
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--db", help="project (the demo by default)")
    args = parser.parse_args()
    for path in render_more(args.out_dir, args.db):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
