"""The dashboard's share of the GUI thread per grade key at TREC shape (issue 28): 115 runs x
50 topics x 1000 documents (benchmarks/trec_scale.py builds the project once into
bench-out/, 100,000 documents by default: the dashboard does not read the texts), the real
main window rendered offscreen, the dashboard in a window of its own beside it (1280 x 800,
four plots in view), as bench_workbench's part 4 has it.

    python benchmarks/bench_dashboard_gui.py [--docs 100000] [--keys 40] [--gap 0.5]
                                             [--project PATH]

Grade keys on two topics (blind order, Hedge), random grades (half of them relevant, so
most keys change most runs' means), --gap seconds of event loop after each (an assessor
reading: the significance tests run there). Per key, the GUI thread's CPU time
(time.thread_time) in:

- the dashboard's update: the snapshot applied to the table (its rows kept sorted), the
  plots, the warnings, the status (EvaluationJobs._on_updated), and the update's start
  (_on_timer_timeout);
- the significance marks applied (the analysis's result: the table's marks, the legend;
  the comparison panel only while its tab is shown);
- the dashboard window's paints (its UpdateRequest events: the table's cells, the plots'
  regions, the labels);
- the whole key: the frame, then everything the window does in the gap (the judging view,
  the topic list, the dashboard, the watchdog's beats).

Median, 90th percentile and maximum; the dashboard's share of the whole key; and the
GUI-thread watchdog of the tests (tests/ui/watchdog.py) over the keys: stalls over 50 ms.
Compare two trees by running each in turn (alternated, several rounds: the machine is
shared); CPU times are steadier than wall times under load.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
OUT = ROOT / "bench-out"

from qt_wait import EventWait  # noqa: E402  (beside this file)
from trec_scale import build_project  # noqa: E402

SPENT: dict[str, float] = {}  # GUI-thread CPU seconds of the key going on, by piece
PIECES = {  # what is counted, and as what
    "update": "the update applied (table, plots, warnings, status)",
    "start": "the update started (its job handed to the worker)",
    "marks": "the significance marks applied",
    "paint": "the dashboard window's paints",
}


def _count(label: str, fn):
    def counted(*args, **kwargs):
        start = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            SPENT[label] = SPENT.get(label, 0.0) + time.thread_time() - start

    return counted


def instrument() -> None:
    """Count the dashboard's slots and its window's paints into SPENT."""
    from PySide6.QtCore import QEvent

    from judgeapp.ui.dashboard.controller import DashboardController
    from judgeapp.ui.dashboard.display import SnapshotDisplay
    from judgeapp.ui.dashboard.jobs import EvaluationJobs
    from judgeapp.ui.dashboard.models import RunMeasureTableModel
    from judgeapp.ui.dashboard.view import DashboardWindow

    for cls, name, label in (
        (EvaluationJobs, "_on_updated", "update"),
        (EvaluationJobs, "_on_timer_timeout", "start"),
        (RunMeasureTableModel, "set_significance", "marks"),
        (DashboardController, "_on_significance_updated", "marks"),
        (SnapshotDisplay, "_on_significance_updated", "marks"),
    ):
        setattr(cls, name, _count(label, getattr(cls, name)))
    event = DashboardWindow.event
    paint = _count("paint", event)

    def window_event(self, e):
        return paint(self, e) if e.type() == QEvent.Type.UpdateRequest else event(self, e)

    DashboardWindow.event = window_event  # type: ignore[method-assign]


def run(db: Path, args) -> dict:
    from PySide6.QtCore import QSettings
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from judgeapp.app import build_main_window, ensure_app
    from judgeapp.ui.dashboard import find_dashboard
    from judgeapp.ui.ops import Ops
    from tests.ui.watchdog import GuiWatchdog

    instrument()
    app = ensure_app()
    settings = QSettings(str(OUT / "bench-settings.ini"), QSettings.Format.IniFormat)
    settings.clear()
    settings.setValue("assessor", "bench")
    window, controller = build_main_window(settings)
    window.resize(1366, 768)
    window.show()
    gc.collect()
    gc.freeze()  # as `python main.py` does once the window is complete
    wait = EventWait(app)
    dash = find_dashboard(controller)
    controller.open_project(str(db))
    wait.until(lambda: controller.workbench is not None and dash.ready(), 600)
    dash.set_own_window(True)
    dash.own_window.resize(1280, 800)
    wait.until(dash.ready, 600)
    wait.idle(1.0)
    judging = controller.judging
    dog = GuiWatchdog()
    dog.start()
    keys: list[dict[str, float]] = []
    rng = np.random.default_rng(7)
    for pool, qid in (("blind-100", "404"), ("hedge-100", "405")):
        with dog.paused():
            controller.choose_pool(pool)
            wait.until(Ops.all_idle, 120)
            controller.open_topic(qid)
            wait.until(Ops.all_idle, 120)
            window.show_view(window.judging_view)
            window.activateWindow()
            window.judging_view.viewer.text.setFocus()
            wait.idle(0.5)
        for _ in range(args.keys // 2):
            if judging.current is None:
                break
            grade = str(int(rng.choice([0, 0, 0, 1, 2, 3])))
            target = QApplication.focusWidget() or window.judging_view.viewer.text
            SPENT.clear()
            start = time.thread_time()
            QTest.keyClick(target, grade)
            wait.idle(args.gap)
            keys.append({**SPENT, "key": time.thread_time() - start})
    dog.stop()
    wait.until(dash.ready, 120)
    dash.set_own_window(False)
    window.close()
    app.processEvents()
    return {"keys": keys, "dog": dog}


def stats(values: list[float]) -> str:
    ms = [v * 1e3 for v in values]
    return (
        f"median {statistics.median(ms):6.1f}   p90 {np.percentile(ms, 90):6.1f}   "
        f"max {max(ms):6.1f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--keys", type=int, default=40, help="grade keys in all (40)")
    parser.add_argument("--gap", type=float, default=0.5, help="seconds after each key")
    parser.add_argument("--project", help="a project of trec_scale's shape (copied)")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    source = Path(args.project) if args.project else OUT / f"trec-{args.docs}.db"
    if not source.exists():
        build_project(source, docs=args.docs)
    db = OUT / "dashboard-gui-run.db"
    for stale in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        stale.unlink(missing_ok=True)
    shutil.copyfile(source, db)
    print(f"load {os.getloadavg()[0]:.2f}")
    try:
        result = run(db, args)
    finally:
        for leftover in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
            leftover.unlink(missing_ok=True)
    keys, dog = result["keys"], result["dog"]
    print(
        f"\nGUI-thread CPU per grade key, {len(keys)} keys {args.gap} s apart, the dashboard "
        "in its own window (1280 x 800)"
    )
    dashboard = [sum(k.get(p, 0.0) for p in PIECES) for k in keys]
    for piece, what in PIECES.items():
        print(f"  {what:52s} {stats([k.get(piece, 0.0) for k in keys])}")
    print(f"  {'the dashboard in all':52s} {stats(dashboard)}")
    whole = [k["key"] for k in keys]
    print(f"  {'the whole key (frame, then the gap)':52s} {stats(whole)}")
    share = statistics.median(dashboard) / statistics.median(whole)
    print(f"  the dashboard's share of the whole key (medians): {share:.2f}")
    print(
        f"watchdog: {len(dog.stalls)} stalls over 50 ms, worst gap {dog.worst:.1f} ms"
        + (": " + ", ".join(f"{st.ms:.0f} ({st.cpu_ms:.0f} CPU)" for st in dog.stalls))
        * bool(dog.stalls)
    )
    print(f"load {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
