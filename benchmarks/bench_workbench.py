"""The window at TREC size (issue 28): 500,000 documents (1.35 GB of text), 50 topics, 115
runs x 1000 documents a topic, a depth-100 pool of about 1,700 documents a topic
(benchmarks/trec_scale.py builds it once into bench-out/), the real main window rendered
offscreen, with the GUI-thread watchdog of the tests (tests/ui/watchdog.py) beating the
whole time.

    python benchmarks/bench_workbench.py [--docs 500000] [--keys 100] [--gap 0.5]
                                         [--opens 5] [--postgres] [--fresh]
                                         [--project PATH_OR_URL] [--parts open,search]

`--project` measures a project made apart, of the same shape (50 topics; topics 401-405
pooled in trec_scale's blind-D and hedge-D, whatever its --depth D): a file (copied first),
or a PostgreSQL database that `python benchmarks/trec_scale.py URL --docs N` filled on a
server (no copy, which takes 20
minutes at 500,000 documents). `--parts` picks what is measured (default: all of it).

1. Open: from `open_project` until the topic list shows its 50 rows (model filled, window
   painted), --opens times alternating with the peer, a raw sqlite3 (psycopg) GROUP BY over
   the pool table (the least any front end reads to list topics with pool sizes); first
   and median, wall time and the process's CPU time. Target: under 0.5 s whatever the
   collection's size.
2. The pool's search box, in the judging view of a topic of about 1,700 documents: the
   first letters of the topic's words typed one key at a time. Per key, the GUI thread's
   time (the key's handler, and applying the matches to the list when they come) and the
   latency until the list shows the matches. Targets: first result under 50 ms, every key
   under 16 ms of GUI time. Before the first key, the topic's texts and their index are
   read in a worker when the topic opens (that time is shown too).
3. Searching the collection (the search panel): the topics' titles, two of their words,
   one quoted word; from Enter until the results show, and the store's query alone
   (engine only). No target in the issue; the window stays live meanwhile.
4. Grade key -> next document shown, with the dashboard in a window of its own beside the
   main window, in view (it follows every judgment): --keys keys on two topics (blind
   order and Hedge), --gap seconds of event loop between keys (an assessor reading). The
   next document appears at once and the judgment is committed (SQLite WAL,
   synchronous=FULL; PostgreSQL fsync on) in the writing lane after that frame (its row
   says "saving" until then); the commit is timed apart. Timed from the key press to the
   end of the window's paint that drew the next document's text (the frame handed to the
   screen). Median, 95th percentile, max, and the GUI thread's CPU time per key: to that
   frame, and in all (the frame, then what follows the judgment in the window while the
   assessor reads); and how long the GUI thread waited in the run queue for a CPU between
   the key and the frame (what a loaded machine adds). Targets: median <= 16.7 ms (one 60
   Hz frame), p95 < 33 ms. The peer: one committed INSERT through the raw driver with the
   same durability, timed beside each key.
5. The watchdog over all of it: gaps between heartbeats (queue time for a CPU taken off),
   the worst, the 99th percentile and how many exceed 50 ms (target: none).

Reported with the load average; wall times on a shared machine are noisy: CPU times are
printed beside them.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import shutil
import sqlite3
import statistics
import sys
import threading
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

ASSESSOR = "bench"


def cpu() -> float:
    """User + system CPU seconds of this process (every thread)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def load() -> str:
    return f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"


def queued() -> float:
    """Seconds the calling thread has waited in the run queue for a CPU (its schedstat):
    on a shared machine, how much of a wall time was only waiting for a core."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/schedstat") as fh:
            return int(fh.read().split()[1]) / 1e9
    except OSError:
        return 0.0


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q)) if values else float("nan")


def ms(values: list[float]) -> str:
    if not values:
        return "(none)"
    v = [x * 1000 for x in values]
    return (
        f"median {statistics.median(v):6.1f} ms   p95 {pct(v, 95):6.1f} ms   "
        f"max {max(v):6.1f} ms   (n={len(v)})"
    )


# -- the peers ---------------------------------------------------------------------------------
def _pg(url: str):
    import psycopg
    from sqlalchemy.engine import make_url

    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    return psycopg.connect(conninfo, autocommit=True)


def raw_group_by(db: Path | str) -> float:
    conn = _pg(db) if isinstance(db, str) else sqlite3.connect(db)
    t0 = time.perf_counter()
    conn.execute("SELECT qid, COUNT(*) FROM pool_docs GROUP BY qid").fetchall()
    took = time.perf_counter() - t0
    conn.close()
    return took


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
    t0 = time.perf_counter()
    if isinstance(conn, sqlite3.Connection):
        conn.execute("BEGIN")
        conn.execute("INSERT INTO j VALUES (?, ?, ?)", ("401", i, i % 4))
        conn.execute("COMMIT")
    else:
        with conn.transaction():
            conn.execute("INSERT INTO peer_j VALUES (%s, %s, %s)", ("401", i, i % 4))
    return time.perf_counter() - t0


# -- the window --------------------------------------------------------------------------------
class FrameClock:
    """When the frame that shows the next document is complete: the end of the window's
    paint (Qt's UpdateRequest, which paints every widget that changed and hands the frame to
    the screen) during which the document's text was painted, after `shown`. Wall time and
    the GUI thread's CPU time then."""

    def __init__(self, window, text_viewport) -> None:
        from PySide6.QtCore import QEvent, QObject

        clock = self

        class Filter(QObject):
            def eventFilter(self, watched, event) -> bool:
                kind = event.type()
                if kind == QEvent.Type.Paint and watched is text_viewport and clock.waiting:
                    clock.text_painted = True
                elif kind == QEvent.Type.UpdateRequest and watched is window and clock.waiting:
                    watched.event(event)  # the window paints now (filters are not asked)
                    if clock.text_painted:
                        clock.painted = time.perf_counter()
                        clock.painted_cpu = time.thread_time()
                        clock.painted_queued = queued()
                        clock.waiting = False
                    return True
                return False

        self.window, self.viewport = window, text_viewport
        self.filter = Filter()
        window.installEventFilter(self.filter)
        text_viewport.installEventFilter(self.filter)
        self.reset()

    def reset(self) -> None:
        self.waiting = self.text_painted = False
        self.painted = self.painted_cpu = self.painted_queued = 0.0

    def shown(self, _doc: int) -> None:
        self.waiting = True

    def close(self) -> None:
        self.window.removeEventFilter(self.filter)
        self.viewport.removeEventFilter(self.filter)


class Bench:
    def __init__(self, db: Path | str, args) -> None:
        from PySide6.QtCore import QSettings

        from judgeapp.app import build_main_window, ensure_app
        from tests.ui.watchdog import GuiWatchdog

        self.app = ensure_app()
        self.db, self.args = db, args
        settings = QSettings(str(OUT / "bench-settings.ini"), QSettings.Format.IniFormat)
        settings.clear()
        settings.setValue("assessor", ASSESSOR)
        self.settings = settings
        self.window, self.controller = build_main_window(settings)
        self.window.resize(1366, 768)
        self.window.show()
        # as `python main.py` does once the window is complete (judgeapp.app)
        gc.collect()
        gc.freeze()
        self.wait = EventWait(self.app)
        self.dog = GuiWatchdog()
        self.steps: list[tuple[float, str]] = []  # (when it began, what the bench did)

    def step(self, what: str) -> None:
        """Note what the bench does from now on, to name the step a stall fell in."""
        self.steps.append((time.perf_counter(), what))

    def step_at(self, when: float) -> str:
        """The step going on at `when` (time.perf_counter())."""
        return next((what for t, what in reversed(self.steps) if t <= when), "setting up")

    def settle(self, seconds: float = 120) -> None:
        from judgeapp.ui.ops import Ops

        if not self.wait.until(Ops.all_idle, seconds):
            raise SystemExit(f"the window's work did not finish in {seconds} s")

    def key(self, sequence: str, target=None) -> None:
        from PySide6.QtGui import QKeySequence
        from PySide6.QtTest import QTest
        from PySide6.QtWidgets import QApplication

        if target is None:
            target = QApplication.focusWidget() or self.window
        combination = QKeySequence(sequence)[0]
        QTest.keyClick(target, combination.key(), combination.keyboardModifiers())

    # 1. open -----------------------------------------------------------------------------
    def open_rounds(self) -> dict:
        from PySide6.QtWidgets import QApplication

        out: dict = {"open": [], "open_cpu": [], "peer": []}
        topics = self.window.topics_view.model
        for k in range(self.args.opens):
            if k % 2 == 0:
                with self.dog.paused():
                    out["peer"].append(raw_group_by(self.db))
            self.step(f"open {k + 1}")
            c0, t0 = cpu(), time.perf_counter()
            self.controller.open_project(str(self.db))
            self.wait.until(
                lambda: self.controller.projects.opening is None and topics.rowCount() == 50, 60
            )
            QApplication.processEvents()  # painted
            out["open"].append(time.perf_counter() - t0)
            out["open_cpu"].append(cpu() - c0)
            if k % 2 == 1:
                with self.dog.paused():
                    out["peer"].append(raw_group_by(self.db))
            self.settle()  # the last topic, if any, opens in the background
            self.wait.idle(0.3)
        return out

    def open_once(self) -> None:
        """The project opened once (when the open rounds are not measured)."""
        topics = self.window.topics_view.model
        self.step("open")
        self.controller.open_project(str(self.db))
        self.wait.until(
            lambda: self.controller.projects.opening is None and topics.rowCount() > 0, 120
        )
        self.settle()

    # 2. the pool's search box -------------------------------------------------------------
    def pool_search(self, qid: str) -> dict:
        c = self.controller
        judging, view = c.judging, self.window.judging_view
        listing = judging.list  # the list under the search box (judgeapp.ui.judging_list)
        t0 = time.perf_counter()
        c.open_topic(qid)
        self.settle()
        texts = time.perf_counter() - t0
        self.window.show_view(view)
        self.wait.idle(0.3)
        # the GUI thread's time in the key's handler and in taking the matches
        applied: list[tuple[float, float]] = []  # (when shown, GUI seconds taking them)
        real = listing._on_matches

        def timed(matches) -> None:  # on the GUI thread
            g0 = time.thread_time()
            real(matches)
            applied.append((time.perf_counter(), time.thread_time() - g0))

        listing._on_matches = timed
        first, later, gui = [], [], []
        words = [w for w in judging.topic.title.split() if len(w) >= 4][:3]
        for word in words:
            view.search.clear()
            self.settle()
            self.key("/")
            for n, ch in enumerate(word[:6]):
                before = len(applied)
                g0 = time.thread_time()
                t0 = time.perf_counter()
                self.key(ch, view.search)
                handler = time.thread_time() - g0
                self.wait.until(lambda b=before: len(applied) > b, 30)
                shown, taking = applied[-1]
                (first if n == 0 else later).append(shown - t0)
                gui.append(handler + taking)
                self.wait.idle(0.15)  # typing speed
            self.key("Escape")
        listing._on_matches = real
        view.search.clear()
        self.settle()
        return {"texts": texts, "first": first, "later": later, "gui": gui, "words": words}

    # 3. searching the collection -----------------------------------------------------------
    def collection_search(self, qids: list[str]) -> dict:
        c = self.controller
        search = c.search
        shown, engine = [], []
        for qid in qids:
            self.step(f"topic {qid} opens")
            c.open_topic(qid)
            self.settle()
            title = c.judging.topic.title.split()
            for text in (" ".join(title), " ".join(title[:2]), f'"{title[0]}"'):
                self.step(f"search {text!r}")
                search.view.query.setText(text)
                t0 = time.perf_counter()
                search.search()
                self.wait.until(lambda: not search.searching, 120)
                shown.append(time.perf_counter() - t0)
                engine.append(search.results.seconds)
                self.settle()
        return {"shown": shown, "engine": engine, "hits": len(search.results.hits)}

    # 4. key -> screen ----------------------------------------------------------------------
    def keys(self, plan: list[tuple[str, str]]) -> dict:
        from PySide6.QtWidgets import QApplication

        from judgeapp.ui.dashboard import find_dashboard

        c = self.controller
        self.step("the dashboard opens in its own window")
        dash = find_dashboard(c)
        dash.set_own_window(True)
        dash.own_window.resize(1280, 800)
        self.wait.until(dash.ready, 600)
        judging = c.judging
        frame = FrameClock(self.window, self.window.judging_view.viewer.text.viewport())
        judging.document_shown.connect(frame.shown)
        # the commit alone, in the writing lane (what no durable judging tool can skip)
        from judgeapp.services.judging import JudgingService

        commits: list[float] = []
        record = JudgingService.record

        def timed_record(service, *a, **k):
            t0 = time.perf_counter()
            try:
                return record(service, *a, **k)
            finally:
                commits.append(time.perf_counter() - t0)

        JudgingService.record = timed_record  # type: ignore[method-assign]
        rng = np.random.default_rng(7)
        peer_conn = peer_connection(
            OUT / "peer.sqlite", self.db if isinstance(self.db, str) else None
        )
        results, peer, gui, cycle, waits = {}, [], [], [], []
        updates_before = dash.updates
        for pool, qid in plan:
            self.step(f"pool {pool} chosen")
            c.choose_pool(pool)
            self.settle()
            self.step(f"topic {qid} opens")
            c.open_topic(qid)
            self.settle()
            self.window.show_view(self.window.judging_view)
            self.window.activateWindow()
            # the keys go to the document, as when the assessor starts judging (the focus may
            # still be in the search panel's query, where a digit is typed, not a grade)
            self.window.judging_view.viewer.text.setFocus()
            self.wait.idle(0.5)
            times = []
            for k in range(self.args.keys):
                doc = judging.current
                if doc is None:
                    break
                grade = str(int(rng.choice([0, 0, 0, 1, 2, 3])))
                self.step(f"{pool}: key {k + 1} (grade {grade}) and the 0.5 s after it")
                peer_first = k % 2 == 1
                if peer_first:
                    with self.dog.paused():  # the peer's work is not the window's
                        peer.append(raw_commit(peer_conn, len(peer)))
                target = QApplication.focusWidget() or self.window.judging_view.viewer.text
                frame.reset()
                q0 = queued()
                g0 = time.thread_time()
                t0 = time.perf_counter()
                self.key(grade, target)
                self.wait.until(lambda: frame.painted > 0, 30)
                times.append(frame.painted - t0)
                gui.append(frame.painted_cpu - g0)
                waits.append(frame.painted_queued - q0)
                if judging.current == doc:
                    raise SystemExit("the key did not move on")
                self.wait.idle(self.args.gap)
                # the GUI thread's whole work for the key: to the frame, then what follows
                # it (the dashboard, the topic list, the estimates) while the assessor reads
                cycle.append(time.thread_time() - g0)
                if not peer_first:
                    with self.dog.paused():
                        peer.append(raw_commit(peer_conn, len(peer)))
            results[pool] = times
        JudgingService.record = record  # type: ignore[method-assign]
        frame.close()
        self.wait.until(dash.ready, 120)
        peer_conn.close()
        for leftover in ("peer.sqlite", "peer.sqlite-wal", "peer.sqlite-shm"):
            (OUT / leftover).unlink(missing_ok=True)
        return {
            "times": results,
            "commits": commits,
            "peer": peer,
            "gui": gui,
            "queued": waits,
            "cycle": cycle,
            "updates": dash.updates - updates_before,
            "visible": dash.view.isVisible(),
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=500_000)
    parser.add_argument("--runs", type=int, default=115)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--keys", type=int, default=100, help="grade keys per topic (100)")
    parser.add_argument("--gap", type=float, default=0.5, help="seconds between keys (0.5)")
    parser.add_argument("--opens", type=int, default=5, help="times the project is opened")
    parser.add_argument("--fresh", action="store_true", help="build the project again")
    parser.add_argument(
        "--project",
        help="a project of the same shape made apart: a file (copied), or a PostgreSQL URL",
    )
    parser.add_argument(
        "--parts",
        default="open,pool,search,keys",
        help="what is measured, of open,pool,search,keys (default: all)",
    )
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="the project on a throwaway PostgreSQL server over loopback (fsync on), copied "
        "from the generated file; the peers then query and commit on that server",
    )
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    print(load())
    parts = set(args.parts.split(","))
    if args.project is not None and "://" in args.project:
        return measure(args.project, args, parts, server=None)
    source = Path(args.project) if args.project else OUT / f"trec-{args.docs}.db"
    if args.fresh and args.project is None:
        source.unlink(missing_ok=True)
    if not source.exists():
        t0 = time.perf_counter()
        timings = build_project(source, docs=args.docs, runs=args.runs, topics=args.topics)
        print(f"built {source.name} in {time.perf_counter() - t0:.0f} s: {timings}")
    db: Path | str = OUT / "workbench-run.db"
    for leftover in (Path(db), Path(f"{db}-wal"), Path(f"{db}-shm")):
        leftover.unlink(missing_ok=True)
    shutil.copyfile(source, db)
    server = None
    if args.postgres:
        from judgeapp.store import Store
        from judgeapp.store.copying import copy_project
        from tests.pgserver import HOW_TO_GET, PgServer, find_bindir

        bindir = find_bindir()
        if bindir is None:
            raise SystemExit(HOW_TO_GET)
        server = PgServer(bindir, durable=True).start()
        url = server.url(server.create_database())
        t0 = time.perf_counter()
        with Store.open(db) as src, Store.open(url) as dst:
            rows = copy_project(src, dst)
            dst.search.optimize()
        print(
            f"copied the project to PostgreSQL ({rows:,} rows) in {time.perf_counter() - t0:.0f} s"
        )
        db = url
    return measure(db, args, parts, server)


def measure(db: Path | str, args, parts: set[str], server) -> int:
    """Measure the window on the project `db` (parts of open, pool, search, keys)."""
    back_end = "PostgreSQL" if isinstance(db, str) else "SQLite"
    conn = _pg(db) if isinstance(db, str) else sqlite3.connect(db)
    n_docs = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    n_runs = conn.execute("SELECT count(*) FROM runs").fetchone()[0]
    # trec_scale's two pools, blind-D and hedge-D (D: the depth it was built with)
    pools = {
        name.split("-")[0]: (i, name) for i, name in conn.execute("SELECT id, name FROM pools")
    }
    (blind_id, blind), (_, hedge) = pools["blind"], pools["hedge"]
    sizes = [
        n
        for (n,) in conn.execute(
            f"SELECT count(*) FROM pool_docs WHERE pool_id = {int(blind_id)} GROUP BY qid"
        )
    ]
    conn.close()
    print(
        f"project ({back_end}): {n_docs:,} documents, {n_runs} runs x {len(sizes)} topics x "
        f"1000, pool {blind} {sum(sizes):,} documents ({min(sizes)}-{max(sizes)} a topic)"
    )
    args.pools = (blind, hedge)

    bench = Bench(db, args)
    bench.dog.start()
    c0, w0 = cpu(), time.perf_counter()
    if "open" in parts:
        report_open(bench, args)
    else:
        bench.open_once()  # the other parts work in the open project
    if "pool" in parts:
        report_pool(bench, sizes[0])
    if "search" in parts:
        report_search(bench)
    if "keys" in parts:
        report_keys(bench, args, isinstance(db, str))
    dog = bench.dog
    dog.stop()
    print(
        f"\n5. GUI-thread watchdog over all of the above ({time.perf_counter() - w0:.0f} s wall, "
        f"{cpu() - c0:.0f} s CPU of the process): {dog.beats:,} beats, worst gap "
        f"{dog.worst:.1f} ms, 99th percentile {dog.percentile(99):.1f} ms, "
        f"{len(dog.stalls)} stalls over 50 ms, {len(dog.statements)} SQL statements on the "
        "GUI thread"
    )
    if dog.stalls:
        print(
            "   every stall, ms (the GUI thread's CPU in it): "
            + ", ".join(f"{st.ms:.0f} ({st.cpu_ms:.0f})" for st in dog.stalls)
        )
    for stall in sorted(dog.stalls, key=lambda st: -st.ms)[:3]:  # the worst, and where
        step = bench.step_at(stall.at - stall.wall_ms / 1000)
        print(f"   while: {step}; {dog.describe(stall)}")
    print(load())
    bench.window.close()
    if server is not None:
        server.stop()
    return 0


def report_open(bench: Bench, args) -> None:
    opened = bench.open_rounds()
    print(f"\n1. open until the topic list shows (target < 0.5 s), {args.opens} opens")
    print(
        f"   judgeapp window: first {opened['open'][0] * 1000:6.1f} ms, median "
        f"{statistics.median(opened['open']) * 1000:6.1f} ms wall; CPU median "
        f"{statistics.median(opened['open_cpu']) * 1000:6.1f} ms"
    )
    print(
        f"   peer: GROUP BY over pool_docs through the raw driver: median "
        f"{statistics.median(opened['peer']) * 1000:.1f} ms"
    )


def report_pool(bench: Bench, size: int) -> None:
    searched = bench.pool_search("401")
    print(
        f"\n2. the pool's search box, topic 401 ({size:,} pooled documents), words "
        f"{', '.join(searched['words'])} typed a letter at a time"
    )
    print(f"   the topic's texts and their index read when it opened: {searched['texts']:.2f} s")
    print(f"   first key -> matches shown      {ms(searched['first'])}   (target < 50 ms)")
    print(f"   later keys -> matches shown     {ms(searched['later'])}")
    print(f"   GUI thread time per key         {ms(searched['gui'])}   (target < 16 ms)")


def report_search(bench: Bench) -> None:
    found = bench.collection_search(["401", "402", "403"])
    print("\n3. searching the whole collection (titles, two words, a quoted word; 200 best)")
    print(f"   Enter -> results shown          {ms(found['shown'])}")
    print(f"   ENGINE ONLY, the store's query  {ms(found['engine'])}")


def report_keys(bench: Bench, args, on_server: bool) -> None:
    blind, hedge = args.pools
    keyed = bench.keys([(blind, "404"), (hedge, "405")])
    print(
        f"\n4. grade key -> next document shown, {args.keys} keys a topic, {args.gap} s apart, "
        "dashboard in its own window (target median <= 16.7 ms, p95 < 33 ms)"
    )
    for pool, times in keyed["times"].items():
        print(f"   {pool:10s} {ms(times)}")
    print(f"   GUI thread CPU, key -> frame  {ms(keyed['gui'])}")
    print(f"   GUI thread waiting for a CPU  {ms(keyed['queued'])}   (run queue, key -> frame)")
    print(
        f"   GUI thread CPU, whole key     {ms(keyed['cycle'])}   (the frame, then the "
        f"dashboard, topic list, estimates, watchdog beats in the {args.gap} s that follow)"
    )
    print(f"   of which the judgment's commit, in the writing lane: {ms(keyed['commits'])}")
    what = "psycopg INSERT+COMMIT (fsync on)" if on_server else "sqlite3 INSERT+COMMIT (WAL, FULL)"
    print(f"   peer: raw {what}: {ms(keyed['peer'])}")
    print(
        f"   the dashboard (in view: {keyed['visible']}) applied {keyed['updates']} updates "
        f"for {sum(len(t) for t in keyed['times'].values())} keys"
    )


if __name__ == "__main__":
    sys.exit(main())
