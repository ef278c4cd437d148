"""The dashboard at TREC scale: 115 generated runs x 50 topics x 1000 documents, the real
main window rendered offscreen with the dashboard in view.

    python benchmarks/bench_dashboard.py [--runs 115] [--topics 50] [--judgments 300]
                                         [--gap 0.5] [--fresh]

For each judgment: a grade key is pressed on the judging view of the real main window
(the judgment is committed, the next document shown, the change broadcast by the main
controller, as in use); the dashboard is in a window of its own beside it (1280 x 800,
four plots in view). The clock stops when both the runs x measures table has repainted
with the new values (a Paint event of its viewport after the key) and the plots show them
(their blit or full draw). Every tenth key is an undo (Ctrl+Z). Median, 95th percentile and
maximum over --judgments keys, thirty per topic over ten topics; between keys the event
loop runs for --gap seconds (half a second: faster than any assessor reads), as an
assessor reading the next document lets it: the significance tests run there, as they do
in use (the estimate of the total relevant waits for a pause of a second, so it does not
run here). Targets: median under 50 ms, 95th percentile under 100 ms. Also shown: the same
measured from the judgment's commit.

Twice: as shipped (every update and full evaluation in the dashboard's worker lane of the
window's ops, judgeapp.ui.ops) and with everything on the GUI thread; for each, the time the
GUI thread spends in the dashboard per judgment (what would hold up the judging view).

The peer, measured in the same run, ENGINE ONLY (no window, inputs in memory): after each
judgment, what an incremental tool built on pytrec_eval would do: re-evaluate only the
judged topic, for every run, with the measures the dashboard computes (its table's
measures, AP, interpolated precision at the 11 recall levels, nDCG at the plots'
cutoffs; pytrec_eval has no Judged@10, which judgeapp computes on top). pytrec_eval gets
the topic's judgments as a dict (docno -> grade) and every run's ranking of it as a dict
(docno -> score); judgeapp gets the same judgments dict, looks the docnos up, and
recomputes the topic in its evaluator (`set_topic_judgments` + `recompute_topic`, runs
already held as id arrays). The two alternate judgment by judgment (the first one changes
every time); medians. The key-to-screen figures above include far more than this
(the commit, the next document, the table and plots drawn); the peer's figure is what a
pytrec_eval-based dashboard would spend before drawing anything.

The project is generated once into bench-out/ (reused unless --fresh): runs are noisy
copies of one hidden ranking per topic (better runs copy it more faithfully); an imported
qrels source has judged the depth-10 pool of every topic; the assessor judges the
depth-100 pool's documents with the hidden truth's grades.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "bench-out"

from qt_wait import EventWait  # noqa: E402  (beside this file)
from trec_scale import LIST_LEN, noisy_runs  # noqa: E402  (beside this file)

from judgeapp.services.policy import qrels_rows  # noqa: E402
from judgeapp.services.pools import PoolService  # noqa: E402

SOURCE = "trec-depth-10"
ASSESSOR = "bench assessor"
# pytrec_eval's names for what the dashboard computes (dashboard_measures), Judged@10 aside
PEER_MEASURES = {
    "map",
    "ndcg_cut.1,2,3,5,10,15,20,30,50,100,200,500,1000",
    "P.10",
    "recall.100",
    "recip_rank",
    "bpref",
    "iprec_at_recall",
}


def docno(t: int, d: int) -> str:
    return f"T{t:02d}-{d:05d}"


def generate(path: Path, n_runs: int, n_topics: int, seed: int = 1) -> None:
    from judgeapp.records import Document, QrelsFile, RankedTopic, RunFile, Topic
    from judgeapp.store import RunImport, Store

    rng = np.random.default_rng(seed)
    lists: list[dict[str, RankedTopic]] = [{} for _ in range(n_runs)]
    topics, qrels = [], ([], [], [])
    pooled: set[str] = set()  # every pooled document gets a line of text, as in use (the
    # judging view asks for a second key before it grades a document without text)
    scores = np.linspace(1000.0, 1.0, LIST_LEN)
    for t, truth, ranked in noisy_runs(rng, n_runs, n_topics):
        qid = str(401 + t)
        topics.append(Topic(qid, f"generated topic {qid}"))
        grade = np.digitize(truth, np.quantile(truth, [0.985, 0.995, 0.999]))
        top10: set[int] = set()
        for r, (top, _scores) in enumerate(ranked):
            top10.update(top[:10].tolist())
            pooled.update(docno(t, d) for d in top[:100].tolist())
            lists[r][qid] = RankedTopic(
                [docno(t, d) for d in top.tolist()], scores, np.arange(LIST_LEN)
            )
        for d in sorted(top10):
            qrels[0].append(qid)
            qrels[1].append(docno(t, d))
            qrels[2].append(int(grade[d]))
        np.save(path.with_name(f"truth-{qid}.npy"), grade)
    path.unlink(missing_ok=True)
    with Store.open(path) as store:
        store.topics.put((topic, None) for topic in topics)
        store.documents.put(
            (Document(name, f"generated document {name}", "generated text"), None)
            for name in sorted(pooled)
        )
        store.runs.add(
            [
                RunImport(RunFile(f"run{r:03d}", f"run{r:03d}", lists[r], LIST_LEN * n_topics))
                for r in range(n_runs)
            ]
        )
        n = len(qrels[0])
        qfile = QrelsFile("generated", qrels[0], qrels[1], np.array(qrels[2]), np.arange(n))
        store.judgments.import_qrels([(qfile, SOURCE)])
        PoolService(store).create_pool("depth-100", strategy="depth", params={"depth": 100})
        store.settings.put("bench_shape", [n_runs, n_topics])


MODES = {
    "default": "as shipped: every update and full evaluation in the dashboard's worker lane",
    "gui": "everything on the GUI thread",
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]


class PaintWatch:
    """Remembers when a widget last painted (an event filter on it)."""

    def __init__(self, widget) -> None:
        from PySide6.QtCore import QEvent, QObject

        watch = self

        class Filter(QObject):
            def eventFilter(self, obj, event):
                if event.type() == QEvent.Type.Paint:
                    watch.at = time.perf_counter()
                return False

        self.at = 0.0
        self.filter = Filter()
        widget.installEventFilter(self.filter)


BUSY = [0.0, 0]  # seconds the GUI thread spent in the dashboard's slots, nesting depth


def time_dashboard_slots() -> None:
    """Count the time the GUI thread spends in the dashboard's slots (recomputing inline,
    applying a snapshot to the table and the plots) into BUSY; once, before any window."""
    from judgeapp.ui.dashboard import DashboardController
    from judgeapp.ui.dashboard.jobs import EvaluationJobs

    if getattr(DashboardController, "_bench_timed", False):
        return

    def timed(fn):
        def wrapper(*a, **k):
            BUSY[1] += 1
            start = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                BUSY[1] -= 1
                if not BUSY[1]:
                    BUSY[0] += time.perf_counter() - start

        return wrapper

    for cls, slot in (
        (DashboardController, "_on_changes_applied"),
        (EvaluationJobs, "_on_timer_timeout"),
        (EvaluationJobs, "_on_updated"),
    ):
        setattr(cls, slot, timed(getattr(cls, slot)))
    DashboardController._bench_timed = True


def run_judgments(args, mode: str, n: int) -> dict[str, list[float]]:
    """Judge `n` documents through the judging view's grade keys (every tenth key an
    undo, Ctrl+Z), with the dashboard in a window of its own beside the main window.
    `mode`: "default" (every update in the worker) or "gui" (every update and the full
    evaluation on the GUI thread)."""
    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from judgeapp.app import build_main_window, ensure_app
    from judgeapp.ui.dashboard import find_dashboard

    app = ensure_app()
    time_dashboard_slots()
    settings = QSettings(str(OUT / "bench-settings.ini"), QSettings.Format.IniFormat)
    settings.clear()
    settings.setValue("assessor", ASSESSOR)
    window, controller = build_main_window(settings)
    window.resize(1280, 800)
    window.show()
    dashboard = find_dashboard(controller)
    dashboard.jobs.threaded = mode != "gui"
    view = dashboard.view
    from judgeapp.ui.ops import Ops

    waiting = EventWait(app)  # (benchmarks/qt_wait.py)
    wait_for, idle = waiting.until, waiting.idle

    start = time.perf_counter()
    controller.open_project(str(args.db))
    wait_for(lambda: controller.workbench is not None and dashboard.ready(), 600)
    load = time.perf_counter() - start
    dashboard.set_own_window(True)
    dashboard.own_window.resize(1280, 800)
    idle(0.5)
    table = PaintWatch(view.table.viewport())

    def visible(cell: tuple[int, int]) -> bool:
        index = view.model.index(view.model.shown_row(cell[0]), cell[1] + 1)
        return view.table.visualRect(index).intersects(view.table.viewport().rect())

    committed = [0.0]
    controller.judging.judgment_recorded.connect(
        lambda _change: committed.__setitem__(0, time.perf_counter())
    )
    store = controller.workbench.store
    qids = sorted(store.pools.sizes("depth-100"), key=int)[:10]
    truth = {q: np.load(OUT / f"truth-{q}.npy") for q in qids}
    judging = controller.judging
    totals, from_commit, gui_busy = [], [], []
    done = 0
    for qid in qids:
        controller.open_topic(qid)
        wait_for(Ops.all_idle, 60)  # the topic is read in a worker
        window.activateWindow()
        idle(0.5)
        for i in range(30):
            if done >= n:
                break
            doc = judging.current
            if doc is None:
                break
            target = QApplication.focusWidget() or window.judging_view
            updates = dashboard.updates
            redraws = [p.redraws for p in view.plots]
            table.at = 0.0
            committed[0] = 0.0
            BUSY[0] = 0.0
            t0 = time.perf_counter()
            if i % 10 == 9:
                QTest.keyClick(target, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
                committed[0] = t0
            else:
                name = store.documents.docnos_of([doc])[doc]
                grade = int(truth[qid][int(name.split("-")[1])])
                QTest.keyClick(target, str(grade))
            if not committed[0]:
                raise SystemExit(f"the key for {qid} did not record a judgment")
            deadline = t0 + 30.0

            def shown_yet(updates: int = updates, t0: float = t0, redraws=redraws) -> bool:
                if dashboard.updates == updates or not dashboard.ready():
                    return False
                # a judgment that changes no visible cell (a non-relevant document below
                # every cutoff, or rows scrolled out of view) leaves nothing to repaint
                for p, before in zip(view.plots, redraws, strict=True):
                    if p.redraws > before and p.canvas.painted_at < t0:
                        return False  # a plot with new data shows it once it has repainted
                return table.at >= t0 or not any(map(visible, dashboard.changed_cells))

            if not wait_for(shown_yet, deadline - time.perf_counter()):
                raise SystemExit(
                    f"no update 30 s after judging in topic {qid}: updates "
                    f"{dashboard.updates - updates}, busy {dashboard.jobs.busy}, dirty "
                    f"{dashboard.jobs.dirty}, timer {dashboard.jobs.timer.isActive()}, pending "
                    f"{[p.pending for p in view.plots]}, cells {len(dashboard.changed_cells)}, "
                    f"table painted {table.at >= t0}, error {dashboard.last_error}"
                )
            painted = [
                p.canvas.painted_at
                for p, n in zip(view.plots, redraws, strict=True)
                if p.redraws > n
            ]
            shown = max([table.at, *painted])
            totals.append(shown - t0)
            from_commit.append(shown - committed[0])
            gui_busy.append(BUSY[0])
            done += 1
            idle(args.gap)
    dashboard.set_own_window(False)
    window.close()
    QApplication.processEvents()
    return {
        "load": [load],
        "total": totals,
        "commit": from_commit,
        "gui": gui_busy,
        "dropped": [dashboard.dropped],
        "plots": [sum(p.full_draws for p in view.plots), sum(p.blits for p in view.plots)],
    }


def incremental_race(db: Path, n_topics: int = 10, per_topic: int = 10) -> dict[str, list[float]]:
    """Recompute the judged topic for every run after each judgment: judgeapp's evaluator
    against pytrec_eval, both from the same dicts, alternating (see the module doc)."""
    import pytrec_eval

    from judgeapp.measures import EvalOptions, Evaluator, Judgments, Run
    from judgeapp.store import Store

    with Store.open(db) as store:
        rows = qrels_rows(store)  # the imported depth-10 judgments
        lists = store.runs.ranked_lists()
        ids = {int(d) for topics in lists.runs.values() for a, _ in topics.values() for d in a}
        names = store.documents.docnos_of(ids)
    id_of = {name: i for i, name in names.items()}
    qrels: dict[str, dict[str, int]] = {}
    for qid, name, grade in rows:
        qrels.setdefault(qid, {})[name] = grade
    pyt_runs = [
        {
            qid: dict(zip([names[int(d)] for d in a], s.tolist(), strict=True))
            for qid, (a, s) in t.items()
        }
        for t in lists.runs.values()
    ]
    runs = [
        Run.from_arrays(name, {qid: a for qid, (a, _) in t.items()})
        for name, t in lists.runs.items()
    ]

    def arrays(topic: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
        docids = np.fromiter((id_of[d] for d in topic), np.int64, len(topic))
        return docids, np.fromiter(topic.values(), np.int64, len(topic))

    evaluator = Evaluator(
        Judgments.from_arrays({q: arrays(t) for q, t in qrels.items()}),
        runs,
        dashboard_measures(),
        EvalOptions(complete=True),
    )
    evaluator.evaluate()

    def ours(qid: str) -> None:
        evaluator.set_topic_judgments(qid, *arrays(qrels[qid]))
        evaluator.recompute_topic(qid)

    def peer(qid: str) -> list[dict]:
        ev = pytrec_eval.RelevanceEvaluator({qid: qrels[qid]}, PEER_MEASURES)
        return [ev.evaluate({qid: run[qid]}) for run in pyt_runs]

    times: dict[str, list[float]] = {"judgeapp": [], "pytrec_eval": []}
    sides = {"judgeapp": ours, "pytrec_eval": peer}
    step, out = 0, {}
    for qid in sorted(qrels, key=int)[:n_topics]:
        truth = np.load(OUT / f"truth-{qid}.npy")
        fresh = [n for n in pyt_runs[0][qid] if n not in qrels[qid]][:per_topic]
        for name in fresh:
            qrels[qid][name] = int(truth[int(name.split("-")[1])])  # one more judgment
            order = list(sides) if step % 2 == 0 else list(sides)[::-1]
            for side in order:
                start = time.perf_counter()
                out[side] = sides[side](qid)
                times[side].append(time.perf_counter() - start)
            step += 1
    # the same numbers on both sides: AP of the last topic, run by run
    results = evaluator.results()
    m, t = results.index("AP"), results.qids.index(qid)
    for r, per_run in enumerate(out["pytrec_eval"]):
        if abs(results.values[m, r, t] - per_run[qid]["map"]) > 1e-9:
            raise SystemExit(f"AP differs for run {r}, topic {qid}")
    return times


def dashboard_measures():
    """What the dashboard computes per topic (services.live_eval.LiveEvaluation)."""
    from judgeapp.measures import DEFAULT_GUI_MEASURES, Measure
    from judgeapp.measures.family import ELEVEN_LEVELS
    from judgeapp.measures.parse import parse_measures
    from judgeapp.services.live_eval import NDCG_CUTOFFS

    return list(
        dict.fromkeys(
            [
                *parse_measures(list(DEFAULT_GUI_MEASURES)),
                Measure("AP"),
                *(Measure("IPrec", x) for x in ELEVEN_LEVELS),
                *(Measure("nDCG", k) for k in NDCG_CUTOFFS),
            ]
        )
    )


def ms(values: list[float]) -> str:
    return (
        f"median {statistics.median(values) * 1e3:7.1f} ms   p95 "
        f"{percentile(values, 0.95) * 1e3:7.1f} ms   max {max(values) * 1e3:7.1f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=115)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--judgments", type=int, default=300)
    parser.add_argument("--gap", type=float, default=0.5, help="seconds between judgments")
    parser.add_argument("--fresh", action="store_true", help="generate the project again")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    args.db = OUT / f"dashboard-{args.runs}x{args.topics}.db"
    if args.fresh or not args.db.exists():
        print(f"generating {args.runs} runs x {args.topics} topics x {LIST_LEN} documents ...")
        start = time.perf_counter()
        generate(args.db, args.runs, args.topics)
        print(f"  done in {time.perf_counter() - start:.1f} s")
    work = OUT / "dashboard-work.db"
    import shutil

    results = {}
    half = max(args.judgments // 2, 20)
    for mode, n in (("default", args.judgments), ("gui", half)):
        for stale in (work, Path(f"{work}-wal"), Path(f"{work}-shm")):
            stale.unlink(missing_ok=True)  # an interrupted earlier run may have left them
        shutil.copy(args.db, work)  # every pass starts from the same judgments
        pass_args = argparse.Namespace(**{**vars(args), "db": work})
        results[mode] = run_judgments(pass_args, mode, n)
    work.unlink(missing_ok=True)
    race = incremental_race(args.db)

    print(
        f"\n## dashboard, {args.runs} runs x {args.topics} topics x {LIST_LEN} documents "
        "window 1280 x 800, four plots in view"
    )
    for mode, label in MODES.items():
        r = results[mode]
        print(f"\n{label}: {len(r['total'])} judgments")
        print(f"  full evaluation on opening        {r['load'][0]:7.2f} s")
        print(f"  grade key -> table and plots shown  {ms(r['total'])}")
        print(f"  judgment committed -> shown       {ms(r['commit'])}")
        print(f"  GUI thread in the dashboard       {ms(r['gui'])}  per judgment")
        print(f"  stale results dropped             {r['dropped'][0]}")
        full, blits = r["plots"]
        print(f"  plot redraws                      {blits} blits, {full} full draws")
    total = results["default"]["total"]
    ours, theirs = statistics.median(race["judgeapp"]), statistics.median(race["pytrec_eval"])
    print(
        f"\nENGINE ONLY, recompute the judged topic for all {args.runs} runs after a judgment, "
        f"the dashboard's measures, {len(race['judgeapp'])} judgments alternated, medians:"
    )
    print(f"  judgeapp evaluator (same judgments dict)   {ours * 1e3:7.2f} ms")
    print(
        f"  pytrec_eval, that topic only               {theirs * 1e3:7.2f} ms   "
        f"({theirs / ours:.1f}x judgeapp's; {theirs / statistics.median(total):.2f}x judgeapp's "
        "whole grade key -> screen)"
    )
    for label, values in (
        ("grade key -> shown", total),
        ("judgment committed -> shown", results["default"]["commit"]),
    ):
        med, p95 = statistics.median(values), percentile(values, 0.95)
        verdict = "ok" if med < 0.050 and p95 < 0.100 else "MISSED"
        print(
            f"target (default), {label}: median {med * 1e3:.1f} ms < 50, "
            f"p95 {p95 * 1e3:.1f} ms < 100  {verdict}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
