"""The Python API against ir_measures on the same in-memory dicts, in one run.

100 runs x 50 topics x 1000 documents (graded qrels, 300 judged documents a topic, scores
with ties), dicts in pytrec_eval's form, runs in no particular order. Each library
evaluates every run with its own ``calc_aggregate(measures, qrels, run)`` (qrels converted
again for each run), and then through an evaluator built once from the qrels (the notebook
pattern: ``ev = evaluator(measures, qrels); [ev.calc_aggregate(run) for run in runs]``),
for the measures both compute through trec_eval (ir_measures' pytrec_eval provider): AP,
nDCG@10, P@10, R@100, RR, Bpref, nDCG. judgeapp runs in 9.x mode, so the values are checked
equal as well (the largest difference is printed). Target: judgeapp at least as fast
(ratio >= 1).

    python benchmarks/bench_api.py [--runs 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import judgeapp  # noqa: E402

MEASURES = ["AP", "nDCG@10", "P@10", "R@100", "RR", "Bpref", "nDCG"]


def make_case(n_runs: int, n_topics: int = 50, depth: int = 1000, seed: int = 0):
    rng = np.random.default_rng(seed)
    docs = np.array([f"doc{i:06d}" for i in range(20_000)])
    qrels, runs = {}, []
    for t in range(n_topics):
        judged = rng.choice(docs.size, 300, replace=False)
        grades = rng.choice([0, 0, 0, 1, 1, 2], 300)
        qrels[str(400 + t)] = dict(zip(docs[judged].tolist(), grades.tolist(), strict=True))
    for _ in range(n_runs):
        run = {}
        for t in range(n_topics):
            ranked = rng.choice(docs.size, depth, replace=False)
            scores = np.round(rng.random(depth) * 50, 1)  # ties
            run[str(400 + t)] = dict(zip(docs[ranked].tolist(), scores.tolist(), strict=True))
        runs.append(run)
    return qrels, runs


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import ir_measures

    qrels, runs = make_case(args.runs)
    ir_ms = [ir_measures.parse_measure(m) for m in MEASURES]
    # the evaluator built once and reused, as a notebook loop over runs would do
    ev = judgeapp.evaluator(MEASURES, qrels, version=9)
    ir_ev = ir_measures.evaluator(ir_ms, qrels)
    sides = {
        "judgeapp": lambda: [judgeapp.calc_aggregate(MEASURES, qrels, r, version=9) for r in runs],
        "ir_measures": lambda: [ir_measures.calc_aggregate(ir_ms, qrels, r) for r in runs],
        "judgeapp reused": lambda: [ev.calc_aggregate(r) for r in runs],
        "ir_measures reused": lambda: [ir_ev.calc_aggregate(r) for r in runs],
    }
    times: dict[str, list[float]] = {name: [] for name in sides}
    results: dict[str, list] = {}
    for round_ in range(args.repeat):
        # the sides take turns; which goes first changes every round
        names = list(sides)[::-1] if round_ % 2 else list(sides)
        for name in names:
            elapsed, results[name] = timed(sides[name])
            times[name].append(elapsed)
    med = {name: statistics.median(t) for name, t in times.items()}
    got, ref = results["judgeapp"], results["ir_measures"]
    worst = max(
        abs(g[text] - r[m])
        for g, r in zip(got, ref, strict=True)
        for text, m in zip(MEASURES, ir_ms, strict=True)
    )
    entries = args.runs * 50 * 1000
    print(f"{args.runs} runs x 50 topics x 1000 docs ({entries:,} entries), measures {MEASURES}")
    print(f"largest difference to ir_measures: {worst:.2e}")
    print(
        f"calc_aggregate     : judgeapp {med['judgeapp']:7.2f} s   "
        f"ir_measures {med['ir_measures']:7.2f} s   "
        f"ratio {med['ir_measures'] / med['judgeapp']:5.2f}x (medians of {args.repeat} rounds)"
    )
    print(
        f"evaluator reused   : judgeapp {med['judgeapp reused']:7.2f} s   "
        f"ir_measures {med['ir_measures reused']:7.2f} s   "
        f"ratio {med['ir_measures reused'] / med['judgeapp reused']:5.2f}x"
    )


if __name__ == "__main__":
    main()
