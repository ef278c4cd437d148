"""Render a view of the real main window offscreen to a PNG (the README pictures).

The project is copied to a temporary folder first, so taking a picture never changes it.
A project without a pool gets one in the copy (depth 20 over every run, blind order), and
with `simulate` > 0 the first documents of the first topics are judged in the copy from the
project's imported qrels, so the picture shows judging under way; the README says so.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QWidget

VIEWS = ("topics", "judging", "dashboard")
ASSESSOR = "demo assessor"


def _copy_project(db: str, into: Path) -> str:
    if "://" in db:
        return db  # not a file: rendered in place (only reads unless a pool is missing)
    source = Path(db)
    target = into / source.name
    from judgeapp.store import Store

    with Store.open(source, create=False):
        pass  # folds the WAL in on close, so the copy is complete
    shutil.copy2(source, target)
    return str(target)


def _prepare(db: str, simulate: int, topics: int) -> str | None:
    """Give the copy a pool and some judgments; returns the topic to show."""
    from judgeapp.services.judging import JudgingService
    from judgeapp.store import Store

    with Store.open(db) as store:
        if not store.pools() and store.runs():
            store.create_pool("depth-20", strategy="depth", params={"depth": 20})
        pools = store.pools()
        if not pools:
            return None
        pool = pools[-1].name
        sizes = store.pool_sizes(pool)
        from judgeapp.ui.models import natural_key

        qids = sorted((q for q in sizes if sizes[q] > 0), key=natural_key)
        if not qids:
            return None
        service = JudgingService(store, ASSESSOR)
        if simulate > 0 and not store.judgments(assessors=[ASSESSOR]):
            truth = {
                (j.qid, j.doc_id): j.grade for j in store.judgments() if j.assessor != ASSESSOR
            }
            for qid in qids[:topics]:
                order = store.open_judging_order(pool, qid, assessors=[ASSESSOR])
                for _ in range(min(simulate, sizes[qid] - 1)):
                    doc = order.next_doc()
                    if doc is None:
                        break
                    grade = max(0, truth.get((qid, doc), 0))
                    service.record(qid, doc, grade, time_spent=20.0, origin="screenshot")
                    order.record(doc, grade, grade >= 1)
        return qids[min(topics, len(qids)) - 1]


def _wait_until(condition, seconds: float = 60.0) -> None:
    import time

    end = time.monotonic() + seconds
    while not condition() and time.monotonic() < end:
        QApplication.processEvents()
        time.sleep(0.01)


def render(
    view: str,
    out: str | Path,
    db: str | None = None,
    size: tuple[int, int] = (1280, 800),
    simulate: int = 12,
    topics: int = 3,
    demo: Callable[[], Path] | None = None,
) -> Path:
    """Render `view` of project `db` (the demo when None) to the PNG `out`."""
    from judgeapp.app import build_main_window, ensure_app

    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r} (one of {', '.join(VIEWS)})")
    app = ensure_app()
    if db is None:
        if demo is None:
            from judgeapp.demo import ensure_demo_project

            demo = ensure_demo_project
        db = str(demo())
    out = Path(out)
    with tempfile.TemporaryDirectory(prefix="judgeapp-shot-") as tmp:
        copy = _copy_project(db, Path(tmp))
        qid = _prepare(copy, simulate, topics)
        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
        settings.setValue("assessor", ASSESSOR)
        window, controller = build_main_window(settings)
        window.resize(*size)
        window.show()
        controller.open_project(copy)
        target: QWidget
        if view == "topics":
            target = window.topics_view
            if qid is not None:
                window.topics_view.select_qid(qid)
            _wait_until(controller.estimates_settled)  # the estimates column (a worker)
        elif view == "judging":
            if qid is not None:
                controller.judging.open_topic(qid)
            target = window.judging_view
        else:
            found = [
                window.tabs.widget(i)
                for i in range(window.tabs.count())
                if window.tabs.tabText(i).lower() == "dashboard"
            ]
            if not found:
                window.close()
                raise ValueError("the dashboard view does not exist yet")
            target = found[0]
        window.show_view(target)
        for _ in range(5):
            QApplication.processEvents()
        prepare = getattr(target, "prepare_screenshot", None)  # the dashboard: wait for its
        if prepare is not None:  # evaluation (a worker) and its plots
            prepare()
        pixmap = window.grab()
        out.parent.mkdir(parents=True, exist_ok=True)
        if not pixmap.save(str(out), "PNG"):
            raise OSError(f"could not write {out}")
        window.close()
        app.processEvents()
    return out
