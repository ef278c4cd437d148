"""Pooling and judging-order speed at TREC scale: 115 generated runs x 50 topics x 1000
documents, depth-100 pool.

    python benchmarks/bench_pooling.py [--runs 115] [--topics 50] [--depth 100] [--seed 1]

1. Depth pooling of every topic: `judgeapp.pooling.build_pool` against a plain-Python pool
   (dicts and sets, what a script would do; the peer), both in this process on the same
   in-memory rankings (engine only), alternating, median of 5 rounds.
2. The store: `Store.create_pool` (pooling + writing every pooled document with its runs and
   ranks), `pool_topic` (one topic back as arrays), `pool_sizes`, `open_judging_order`
   (medians of 5; no peer).
3. Every judging order over one full simulated topic (the largest pool): the time of each
   `next_doc()` + `record()` pair, median and 95th percentile, against the 1 ms target.
   Relevance comes from the generator's hidden truth.

The runs are noisy copies of one hidden ranking per topic (better runs copy it more
faithfully), so pools overlap as real ones do (TREC-8: about 1,700 documents per topic at
depth 100 from 129 runs).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judgeapp.pooling import ORDERS, build_pool, make_order, topic_seed  # noqa: E402
from judgeapp.services.pools import PoolService  # noqa: E402

COLLECTION = 20_000  # candidate documents per topic
LIST_LEN = 1000


def generate(n_runs: int, n_topics: int, seed: int):
    """run -> qid -> doc ids (int64, rank order), and per topic the set of relevant docs."""
    rng = np.random.default_rng(seed)
    lists: dict[str, dict[str, np.ndarray]] = {f"run{r:03d}": {} for r in range(n_runs)}
    relevant: dict[str, np.ndarray] = {}
    quality = rng.uniform(0.3, 3.0, n_runs)
    for t in range(n_topics):
        qid = str(401 + t)
        base = t * COLLECTION
        truth = rng.standard_normal(COLLECTION) * 2.0  # latent relevance
        relevant[qid] = base + np.flatnonzero(truth > np.quantile(truth, 0.99))
        for r, name in enumerate(lists):
            noisy = quality[r] * truth + rng.standard_normal(COLLECTION) * 3.0
            top = np.argpartition(-noisy, LIST_LEN)[:LIST_LEN]
            lists[name][qid] = base + top[np.argsort(-noisy[top])]
    return lists, relevant


def plain_depth_pool(lists: dict[str, dict[str, np.ndarray]], depth: int) -> int:
    """The peer: a depth pool with contributing runs and best rank in dicts."""
    total = 0
    qids = {q for t in lists.values() for q in t}
    for qid in qids:
        pool: dict[int, list[tuple[str, int]]] = {}
        for run, topics in lists.items():
            for rank, doc in enumerate(topics[qid][:depth].tolist(), 1):
                pool.setdefault(doc, []).append((run, rank))
        best = {d: min(r for _, r in c) for d, c in pool.items()}
        total += len(best)
    return total


def timed(fn, repeat: int = 5):
    """(median seconds of `repeat` calls, the last result)."""
    times, out = [], None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def race(ours, peer, rounds: int = 5):
    """Both sides alternating (the first one changing every round): medians and results."""
    times: tuple[list[float], list[float]] = ([], [])
    out = [None, None]
    for k in range(rounds):
        for i in (0, 1) if k % 2 == 0 else (1, 0):
            gc.collect()
            start = time.perf_counter()
            out[i] = (ours, peer)[i]()
            times[i].append(time.perf_counter() - start)
    return statistics.median(times[0]), out[0], statistics.median(times[1]), out[1]


def bench_orders(pool, lists, relevant, seed: int) -> list[tuple[str, float, float, int]]:
    qid = max(pool, key=lambda q: len(pool[q]))
    topic = pool[qid]
    run_lists = {run: topics[qid] for run, topics in lists.items()}
    rel = set(relevant[qid].tolist())
    rows = []
    for name in ORDERS:
        if ORDERS[name].needs_text:
            continue  # without text it is a fusion ranking; bench_cal_keys.py times it
        order = make_order(name, topic, run_lists, topic_seed(seed, qid))
        times = []
        clock = time.perf_counter
        while True:
            start = clock()
            doc = order.next_doc()
            if doc is None:
                break
            is_rel = doc in rel
            order.record(doc, int(is_rel), is_rel)
            times.append(clock() - start)
        times.sort()
        p95 = times[int(0.95 * (len(times) - 1))]
        rows.append((name, statistics.median(times) * 1e3, p95 * 1e3, len(times)))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=115)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    print(f"generating {args.runs} runs x {args.topics} topics x {LIST_LEN} documents ...")
    lists, relevant = generate(args.runs, args.topics, args.seed)

    t_ours, pool, t_peer, n_peer = race(
        lambda: build_pool(lists, "depth", {"depth": args.depth}),
        lambda: plain_depth_pool(lists, args.depth),
    )
    n_docs = sum(len(t) for t in pool.values())
    if n_docs != n_peer:
        sys.exit(f"pool sizes differ: judgeapp {n_docs}, plain Python {n_peer}")
    print(f"\n## depth-{args.depth} pooling, {args.topics} topics ({n_docs} pooled documents)")
    print("engine only, the same rankings in memory, median of 5 alternated rounds")
    print(f"plain Python (peer)   {t_peer * 1e3:8.1f} ms")
    print(f"judgeapp build_pool   {t_ours * 1e3:8.1f} ms   ({t_peer / t_ours:.1f}x faster)")

    print("\n## store (SQLite file in a temporary folder)")
    store_rows(lists, args)

    print(
        f"\n## judging orders: next_doc() + record() over one full topic "
        f"({max(len(t) for t in pool.values())} documents, {args.runs} runs)"
    )
    print(f"{'order':12} {'median ms':>10} {'p95 ms':>10} {'steps':>7}  target < 1 ms")
    for name, median, p95, steps in bench_orders(pool, lists, relevant, args.seed):
        verdict = "ok" if p95 < 1.0 else "SLOW"
        print(f"{name:12} {median:10.4f} {p95:10.4f} {steps:7d}  {verdict}")
    return 0


def store_rows(lists, args) -> None:
    from judgeapp.records import RankedTopic, RunFile
    from judgeapp.store import RunImport, Store

    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(Path(tmp) / "bench.db")
        imports = []
        for name, topics in lists.items():
            ranked = {
                qid: RankedTopic(
                    [f"D{d}" for d in ids.tolist()],
                    np.linspace(1000.0, 1.0, len(ids)),
                    np.arange(len(ids)),
                )
                for qid, ids in topics.items()
            }
            imports.append(RunImport(RunFile(name, name, ranked, sum(map(len, topics.values())))))
        start = time.perf_counter()
        store.runs.add(imports)
        print(f"import runs (setup)          {time.perf_counter() - start:8.2f} s")
        start = time.perf_counter()
        info = PoolService(store).create_pool("bench", params={"depth": args.depth})
        took = time.perf_counter() - start
        print(f"create_pool                  {took:8.2f} s   ({info.n_docs} documents stored)")
        qid = next(iter(lists["run000"]))
        t, topic = timed(lambda: PoolService(store).pool_topic("bench", qid), 5)
        print(f"pool_topic (one topic)       {t * 1e3:8.1f} ms  ({len(topic)} documents)")
        t, _ = timed(lambda: store.pools.sizes("bench"), 5)
        print(f"pool_sizes (all topics)      {t * 1e3:8.1f} ms")
        t, _ = timed(lambda: PoolService(store).pool_progress("bench"), 5)
        print(f"pool_progress (all topics)   {t * 1e3:8.1f} ms")
        t, _ = timed(
            lambda: PoolService(store).open_judging_order("bench", qid, order="maxmean"), 5
        )
        print(f"open_judging_order (maxmean) {t * 1e3:8.1f} ms")
        store.close()


if __name__ == "__main__":
    raise SystemExit(main())
