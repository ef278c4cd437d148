"""Workbench responsiveness at TREC scale: 115 generated runs x 50 topics x 1000 documents,
a depth-100 pool, the real main window rendered offscreen.

    python benchmarks/bench_workbench.py [--runs 115] [--topics 50] [--keys 200] [--gap 0.5]
                                         [--opens 3] [--dashboard] [--fresh]

1. Opening the project: from building the main window to the topic list shown (model
   filled, window painted), --opens times (the window closed in between), alternating
   with the peer, a raw sqlite3 `SELECT ... GROUP BY` over the same pool table (the least
   any front end has to read); the first open (what a user sees after starting the app)
   and the median. Target: under 2 s. Beside it, the pieces: `Store.open`, the topic rows
   (one grouped query). With --dashboard, also how much later the dashboard shows every
   run's measures.
2. A grade key to the next document shown: a key press on the judging view (shortcut ->
   JudgingService.record, committed with synchronous=FULL -> judging order -> list row ->
   next document text and highlights -> paint), median and 95th percentile over --keys
   keys, for the blind order and for Hedge (an adaptive order). Target: median under 50 ms.
   Between keys the event loop runs for --gap seconds (an assessor reading the document);
   whatever the app does then (with --dashboard: its updates, significance tests, estimates)
   runs there, as in use, and still holds up a key that comes while it runs.
   The peer: the raw sqlite3 cost of one committed INSERT with the same pragmas (WAL,
   synchronous=FULL), which no judging tool that keeps every judgment on disk can avoid,
   timed beside each key (before it or after it, in turn).
   With --dashboard the dashboard is in a window of its own beside the main window (its
   "Own window" button), in view, so it follows every judgment; the benchmark counts its
   updates and the topics its table evaluates afterwards, to show it did.
3. Reopening the project after those judgments, until the topic list shows (the counts of
   judged and relevant documents now join the judgments to the pool), --opens times as in
   1. Target: under 2 s.

The project is generated once into bench-out/ (reused unless --fresh): runs are noisy
copies of one hidden ranking per topic (better runs copy it more faithfully), so pools
overlap as real ones do; pooled documents get a few hundred words of text.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "bench-out"

from trec_scale import CANDIDATES, LIST_LEN, noisy_runs  # noqa: E402  (beside this file)

from judgeapp.services.overview import project_info  # noqa: E402
from judgeapp.services.pools import PoolService  # noqa: E402

DEPTH = 100
WORDS = (
    "flow shock wave boundary layer heat transfer pressure wing aircraft model speed "
    "supersonic subsonic laminar turbulent stress buckling shell plate cylinder theory "
    "experiment measurement tunnel number mach reynolds surface temperature velocity drag "
    "lift method solution equation results analysis effect data test body nose cone"
).split()


def generate(path: Path, n_runs: int, n_topics: int, seed: int = 1) -> None:
    from judgeapp.formats.model import Document, RankedTopic, RunFile, Topic
    from judgeapp.store import RunImport, Store

    rng = np.random.default_rng(seed)
    lists: list[dict[str, RankedTopic]] = [{} for _ in range(n_runs)]
    pooled: set[int] = set()
    topics = []
    for t, _truth, ranked in noisy_runs(rng, n_runs, n_topics):
        qid = str(401 + t)
        words = rng.choice(WORDS, 4, replace=False)
        topics.append(
            (
                Topic(
                    qid,
                    " ".join(words[:3]),
                    f"Find reports on {' '.join(words)} in experiments.",
                    f"Relevant documents describe {words[0]} and {words[1]} measurements.",
                ),
                None,
            )
        )
        for r, (top, scores) in enumerate(ranked):
            ids = t * CANDIDATES + top
            pooled.update(ids[:DEPTH].tolist())
            lists[r][qid] = RankedTopic(
                [f"D{i}" for i in ids.tolist()],
                scores.astype(np.float64),
                np.arange(LIST_LEN, dtype=np.int64),
            )
    tmp = path.with_suffix(".building")
    tmp.unlink(missing_ok=True)
    with Store.open(tmp) as store:
        store.put_topics(topics)
        vocab = np.array(WORDS)

        def documents():
            for i in sorted(pooled):
                body = " ".join(vocab[rng.integers(0, len(vocab), 250)].tolist())
                yield Document(f"D{i}", f"Document {i}", body), None

        store.put_documents(documents())
        imports = [
            RunImport(RunFile(f"run{r:03d}", f"run{r:03d}", lists[r], n_topics * LIST_LEN))
            for r in range(n_runs)
        ]
        store.add_runs(imports)
        PoolService(store).create_pool("blind-100", strategy="depth", params={"depth": DEPTH})
        PoolService(store).create_pool(
            "hedge-100", strategy="depth", params={"depth": DEPTH}, judging_order="hedge"
        )
    os.replace(tmp, path)


def _pg(url: str):
    import psycopg
    from sqlalchemy.engine import make_url

    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    return psycopg.connect(conninfo, autocommit=True)


def peer_connection(path: Path, url: str | None = None):
    """The peer's database: WAL and synchronous=FULL, as the store has; or a table on the
    project's PostgreSQL server (fsync on), committing one row per judgment."""
    if url is not None:
        conn = _pg(url)
        conn.execute("DROP TABLE IF EXISTS peer_j")
        conn.execute("CREATE TABLE peer_j (qid TEXT, doc INTEGER, grade INTEGER)")
        return conn
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE j (qid TEXT, doc INTEGER, grade INTEGER)")
    return conn


def raw_commit(conn, i: int) -> float:
    """The peer: one INSERT + COMMIT, as the store does for one judgment."""
    t0 = time.perf_counter()
    if isinstance(conn, sqlite3.Connection):
        conn.execute("BEGIN")
        conn.execute("INSERT INTO j VALUES (?, ?, ?)", ("401", i, i % 4))
        conn.execute("COMMIT")
    else:
        with conn.transaction():
            conn.execute("INSERT INTO peer_j VALUES (%s, %s, %s)", ("401", i, i % 4))
    return time.perf_counter() - t0


def raw_group_by(db: Path | str) -> float:
    conn = _pg(db) if isinstance(db, str) else sqlite3.connect(db)
    t0 = time.perf_counter()
    conn.execute("SELECT qid, COUNT(*) FROM pool_docs GROUP BY qid").fetchall()
    took = time.perf_counter() - t0
    conn.close()
    return took


def open_rounds(app, db: Path, settings, args) -> dict:
    """Open the project args.opens times, the window closed in between, alternating with the
    peer's GROUP BY; with --dashboard also wait for the dashboard each time. The last window
    stays open."""
    from judgeapp.ui.dashboard import find_dashboard

    out: dict = {"open": [], "peer": [], "dashboard": []}
    window = None
    for k in range(args.opens):
        if window is not None:
            window.close()
            idle(app, 0.3)
        if k % 2 == 0:
            out["peer"].append(raw_group_by(db))
        window, controller, seconds = open_window(db, settings, args.dashboard, args.topics)
        out["open"].append(seconds)
        if args.dashboard:
            t0 = time.perf_counter()
            while (dash := find_dashboard(controller)) is None or not dash.ready():
                idle(app, 0.005)
            out["dashboard"].append(time.perf_counter() - t0)
        if k % 2 == 1:
            out["peer"].append(raw_group_by(db))
    out["window"], out["controller"] = window, controller
    return out


def report_opens(r: dict) -> None:
    first, med = r["open"][0], statistics.median(r["open"])
    print(
        f"   judgeapp window: first {first * 1000:7.1f} ms, median of {len(r['open'])} "
        f"{med * 1000:7.1f} ms ({', '.join(f'{t * 1000:.0f}' for t in r['open'])})  "
        f"({'OK' if max(first, med) < 2 else 'SLOW'})"
    )
    if r["dashboard"]:
        print(
            "   then the dashboard shows every run's measures after: first "
            f"{r['dashboard'][0]:.2f} s more, median {statistics.median(r['dashboard']):.2f} s"
        )
    print(
        f"   peer: GROUP BY over pool_docs through the raw driver: median "
        f"{statistics.median(r['peer']) * 1000:.1f} ms"
    )


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q))


def open_window(db: Path, settings, dashboard: bool, n_topics: int):
    """Build the main window, open `db`, and return (window, controller, seconds until the
    topic list is shown)."""
    from PySide6.QtWidgets import QApplication

    from judgeapp.app import build_main_window, open_workbench
    from judgeapp.ui.controller import MainController
    from judgeapp.ui.main_window import MainWindow

    t0 = time.perf_counter()
    if dashboard:
        window, controller = build_main_window(settings, defer_dashboard=True)
    else:
        window = MainWindow()
        controller = MainController(window, open_workbench, settings)
    window.resize(1280, 800)
    window.show()
    controller.open_project(str(db))
    topics = window.topics_view
    QApplication.processEvents()
    seconds = time.perf_counter() - t0
    assert topics.model.rowCount() == n_topics and window.isVisible(), "topic list not filled"
    return window, controller, seconds


def idle(app, seconds: float) -> None:
    """Let the event loop run for `seconds`, sleeping in Qt's wait for events, as the app
    does in use (a Python loop spinning processEvents would steal the interpreter lock from
    the dashboard's worker thread)."""
    from PySide6.QtCore import QEventLoop, QTimer

    end = time.perf_counter() + seconds
    wake = QTimer()
    wake.start(50)  # a safety net: the loop wakes at least this often
    while time.perf_counter() < end:
        app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
    wake.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=115)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--keys", type=int, default=200)
    parser.add_argument(
        "--gap", type=float, default=0.5, help="seconds of event loop between keys (0.5)"
    )
    parser.add_argument(
        "--opens", type=int, default=3, help="times the project is opened (and reopened)"
    )
    parser.add_argument("--fresh", action="store_true", help="regenerate the project")
    parser.add_argument(
        "--dashboard",
        action="store_true",
        help="measure the whole app as `python main.py` builds it (the evaluation dashboard "
        "attached once the topic list shows), then judge with the dashboard in its own window, "
        "in view; by default the workbench alone",
    )
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="the project on a PostgreSQL server over loopback (a throwaway one, fsync on), "
        "copied from the generated file; the peers then query and commit on that server",
    )
    args = parser.parse_args()

    OUT.mkdir(exist_ok=True)
    source = OUT / f"workbench-{args.runs}x{args.topics}.db"
    if args.fresh or not source.exists():
        t0 = time.perf_counter()
        generate(source, args.runs, args.topics)
        print(f"generated {source.name} in {time.perf_counter() - t0:.1f} s")
    db: Path | str = OUT / "workbench-run.db"
    for leftover in (Path(db), Path(f"{db}-wal"), Path(f"{db}-shm")):
        leftover.unlink(missing_ok=True)
    shutil.copy2(source, db)
    server = None
    if args.postgres:
        from judgeapp.store import Store as _Store
        from judgeapp.store.copying import copy_project
        from tests.pgserver import HOW_TO_GET, PgServer, find_bindir

        bindir = find_bindir()
        if bindir is None:
            raise SystemExit(HOW_TO_GET)
        server = PgServer(bindir, durable=True).start()
        url = server.url(server.create_database())
        t0 = time.perf_counter()
        with _Store.open(db) as src, _Store.open(url) as dst:
            rows = copy_project(src, dst)
        print(f"copied the project to PostgreSQL ({rows:,} rows) in {time.perf_counter() - t0:.1f} s")
        db = url

    from PySide6.QtCore import QSettings
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from judgeapp.app import ensure_app
    from judgeapp.store import Store

    app = ensure_app()
    settings = QSettings(str(OUT / "bench-settings.ini"), QSettings.Format.IniFormat)
    settings.clear()
    settings.setValue("assessor", "bench")

    with Store.open(db) as store:
        info = project_info(store)
        sizes = store.pool_sizes("blind-100")
    print(
        f"project: {info.runs} runs, {info.topics} topics, {info.ranked_entries:,} ranked "
        f"entries, {info.documents:,} documents; depth-{DEPTH} pool: "
        f"{sum(sizes.values()):,} documents ({min(sizes.values())}-{max(sizes.values())} "
        "per topic)"
    )

    # 1. open -> topic list shown ------------------------------------------------------------
    opened = open_rounds(app, db, settings, args)
    window, controller = opened["window"], opened["controller"]
    t0 = time.perf_counter()
    store = Store.open(db)
    store_open = time.perf_counter() - t0
    from judgeapp.services.workbench import Workbench

    wb = Workbench(store, "bench")
    t0 = time.perf_counter()
    wb.topic_rows()
    rows_s = time.perf_counter() - t0
    store.close()
    what = "whole app, dashboard attached" if args.dashboard else "workbench alone"
    print(f"\n1. open the project until the topic list shows (target < 2 s; {what})")
    report_opens(opened)
    print(f"     Store.open      {store_open * 1000:8.1f} ms")
    print(f"     topic rows      {rows_s * 1000:8.1f} ms (pool sizes + judged counts)")

    dash = None
    if args.dashboard:
        from judgeapp.ui.dashboard import find_dashboard

        dash = find_dashboard(controller)
        # out of the tabs into a window of its own, beside the judging, as "Own window" does
        dash.set_own_window(True)
        dash.own_window.resize(1280, 800)
        idle(app, 0.5)
        assert dash.view.isVisible(), "the dashboard is not in view"

    # 2. grade key -> next document shown ---------------------------------------------------
    rng = np.random.default_rng(7)
    judging = controller.judging
    results = {}
    qids = sorted(sizes, key=int)
    updates_before = dash.updates if dash else 0
    peer_conn = peer_connection(OUT / "peer.sqlite", db if isinstance(db, str) else None)
    peer: list[float] = []
    for pool, qid in (("blind-100", qids[0]), ("hedge-100", qids[1])):
        controller.choose_pool(pool)
        controller.open_topic(qid)
        window.activateWindow()
        idle(app, 0.5)
        times = []
        for _ in range(args.keys):
            doc = judging.current
            if doc is None:
                break
            grade = int(rng.choice([0, 0, 0, 1, 2, 3]))
            focus = QApplication.focusWidget()
            target = (
                focus if focus and focus.window() is window else window.judging_view.viewer.text
            )
            peer_first = len(peer) % 2 == 1  # the two sides take turns going first
            if peer_first:
                peer.append(raw_commit(peer_conn, len(peer)))
            t0 = time.perf_counter()
            QTest.keyClick(target, str(grade))
            app.processEvents()  # the next document painted
            times.append(time.perf_counter() - t0)
            assert judging.current != doc, "the key did not move on"
            if not peer_first:
                peer.append(raw_commit(peer_conn, len(peer)))
            idle(app, args.gap)
        results[pool] = times
    if dash is not None:
        end = time.perf_counter() + 60
        while not dash.ready() and time.perf_counter() < end:
            idle(app, 0.05)
        snap = dash.snapshot
        judged_topics = len(snap.qids) if snap is not None else 0
        dash_updates = dash.updates - updates_before
    peer_conn.close()
    for leftover in ("peer.sqlite", "peer.sqlite-wal", "peer.sqlite-shm"):
        (OUT / leftover).unlink(missing_ok=True)
    print(
        f"\n2. grade key -> next document shown, {args.keys} keys, {args.gap} s apart "
        "(target median < 50 ms)"
    )
    for pool, times in results.items():
        med, p95 = statistics.median(times) * 1000, pct(times, 95) * 1000
        verdict = "OK" if med < 50 else "SLOW"
        print(f"   {pool:10s} median {med:6.1f} ms   p95 {p95:6.1f} ms   ({verdict})")
    med, p95 = statistics.median(peer) * 1000, pct(peer, 95) * 1000
    what = (
        "psycopg INSERT+COMMIT on the server (fsync on)"
        if isinstance(db, str)
        else "raw sqlite3 INSERT+COMMIT (WAL, synchronous=FULL)"
    )
    print(f"   peer: {what}: median {med:.2f} ms, p95 {p95:.2f} ms")
    blind_med = statistics.median(results["blind-100"]) * 1000
    if dash is not None:
        keys = sum(len(t) for t in results.values())
        print(
            f"   the dashboard, in its own window (in view: {dash.view.isVisible()}), applied "
            f"{dash_updates} updates for {keys} keys; its table now evaluates {judged_topics} "
            "judged topics"
        )
        if not dash_updates:
            raise SystemExit("the dashboard did not follow the judgments")
    print(f"   ratio judgeapp blind / raw commit: {blind_med / max(med, 1e-6):.1f}x")
    window.close()

    # 3. reopen after judging -> topic list shown ---------------------------------------------
    judged = sum(len(t) for t in results.values())
    app.processEvents()
    reopened = open_rounds(app, db, settings, args)
    print(f"\n3. reopen the project with {judged} judgments made (target < 2 s)")
    report_opens(reopened)
    reopened["window"].close()
    if server is not None:
        store.close()
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
