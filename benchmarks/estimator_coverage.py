"""How often the estimators' intervals cover the true number of relevant documents, on the
Robust 2003 topics 601-650 (judged for the 17 runs down to depth 125, so the truth is known)
with every judgment the estimator should not see hidden.

    python benchmarks/estimator_coverage.py [--seeds 20] > benchmarks/results/estimators.md

(a) the sampling estimator: a stratified sample per topic (`sample_topic`), every sampled
    document judged, the rest hidden; the truth is the relevant documents of the population.
(b) the curve estimator: each judging order judges a share of the depth-100 pool, the rest is
    hidden; the truth is the pool's relevant documents.
Prints Markdown tables: coverage (share of topic x seed cases whose interval holds the
truth), median interval width, and mean absolute error of the point estimate.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judgeapp.formats import read_qrels, read_run  # noqa: E402
from judgeapp.measures import Judgments, Vocabulary  # noqa: E402
from judgeapp.pooling import depth_pool  # noqa: E402
from judgeapp.pooling.estimate import curve_estimate, sample_estimate, sample_topic  # noqa: E402
from judgeapp.pooling.simulate import replay_topic  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "robust03"
TOPICS = [str(q) for q in range(601, 651)]


def load():
    vocab = Vocabulary()
    judged = Judgments.from_qrels(read_qrels(DATA / "robust03_qrels.txt"), vocab)
    lists = {}
    for path in sorted((DATA / "runs").glob("input.*.gz")):
        run = read_run(path)
        lists[run.tag] = {q: vocab.ids(t.docnos) for q, t in run.topics.items()}
    qrels = {q: (judged.topics[q].docids, judged.topics[q].grades) for q in TOPICS}
    return lists, qrels


def row(label: str, cases: list[tuple[float, float, float, int]]) -> str:
    arr = np.array(cases)
    point, low, high, truth = arr.T
    covered = ((low <= truth) & (truth <= high)).mean()
    return (
        f"| {label} | {len(cases)} | {covered:.3f} | {np.median(high - low):.1f} | "
        f"{np.abs(point - truth).mean():.1f} |"
    )


def sampling(lists, qrels, seeds: int) -> list[str]:
    names = list(lists)
    empty = np.empty(0, np.int64)
    scenarios = [
        ("nothing judged, 60 drawn from the depth-100 pool", 100, 60, "none"),
        ("nothing judged, 20 drawn from the depth-100 pool", 100, 20, "none"),
        ("first 100 in MTF order judged, 40 drawn from the rest", 100, 40, "mtf100"),
        ("depth-50 pool judged, 40 drawn beyond it, down to rank 125", 125, 40, "depth50"),
    ]
    out = []
    for level in (0.8, 0.9, 0.95):
        for label, depth, size, judged_first in scenarios:
            cases = []
            for qid in TOPICS:
                run_lists = [lists[r].get(qid, empty) for r in names]
                ids, grades = qrels[qid]
                population = depth_pool(qid, names, run_lists, depth)
                truth = int(np.isin(ids[grades >= 1], population.doc_ids).sum())
                before = None
                if judged_first == "mtf100":
                    pool = depth_pool(qid, names, run_lists, 100)
                    order = replay_topic(
                        "mtf", pool, dict(zip(names, run_lists, strict=True)), {qid: (ids, grades)}
                    )
                    before = order.order[:100]
                elif judged_first == "depth50":
                    before = depth_pool(qid, names, run_lists, 50).doc_ids
                for seed in range(seeds):
                    topic = sample_topic(
                        qid, names, run_lists, depth=depth, size=size, judged=before, seed=seed
                    )
                    est = sample_estimate(topic, (ids, grades), level=level)
                    cases.append((est.point, est.low, est.high, truth))
            out.append(row(f"{level:.2f} | {label}", cases))
    return out


def curves(lists, qrels, seeds: int) -> list[str]:
    names = list(lists)
    empty = np.empty(0, np.int64)
    out = []
    for order in ("blind", "rank", "mtf", "hedge", "maxmean", "maxmean-ns"):
        for share in (0.25, 0.5):
            cases = []
            for qid in TOPICS:
                run_lists = [lists[r].get(qid, empty) for r in names]
                pool = depth_pool(qid, names, run_lists, 100)
                for seed in range(seeds if order == "blind" else 1):
                    replay = replay_topic(
                        order,
                        pool,
                        dict(zip(names, run_lists, strict=True)),
                        {qid: qrels[qid]},
                        seed,
                    )
                    n = int(share * len(pool))
                    est = curve_estimate(
                        replay.relevant_at[:n], len(pool), adaptive=order != "blind", seed=seed
                    )
                    cases.append((est.point, est.low, est.high, replay.relevant))
            out.append(row(f"{order} | {share:.0%}", cases))
    return out


SPREADS = (1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0)
ADAPTIVE = ("rank", "mtf", "hedge", "maxmean", "maxmean-ns")


def adaptive_replays(lists, qrels) -> dict[tuple[str, str, float], tuple]:
    """(order, qid, share) -> (relevance of the judged documents, pool size, truth)."""
    names = list(lists)
    empty = np.empty(0, np.int64)
    out = {}
    for order in ADAPTIVE:
        for qid in TOPICS:
            run_lists = [lists[r].get(qid, empty) for r in names]
            pool = depth_pool(qid, names, run_lists, 100)
            replay = replay_topic(
                order, pool, dict(zip(names, run_lists, strict=True)), {qid: qrels[qid]}
            )
            for share in (0.25, 0.5):
                n = int(share * len(pool))
                out[order, qid, share] = (replay.relevant_at[:n], len(pool), replay.relevant)
    return out


def calibrate(lists, qrels) -> list[str]:
    """The smallest spread of the grid whose 95% intervals cover at least 95% of the
    calibration topics' cases at each share judged (adaptive orders together), and its
    coverage on the held-out topics."""
    replays = adaptive_replays(lists, qrels)
    first, second = TOPICS[:25], TOPICS[25:]

    def cases(qids, share, spread):
        got = []
        for order in ADAPTIVE:
            for qid in qids:
                relevant, size, truth = replays[order, qid, share]
                est = curve_estimate(relevant, size, adaptive=True, spread=spread)
                got.append((est.point, est.low, est.high, truth))
        return got

    def coverage(got) -> float:
        arr = np.array(got)
        return float(((arr[:, 1] <= arr[:, 3]) & (arr[:, 3] <= arr[:, 2])).mean())

    out = ["| spread | share judged | calibration topics 601-625 | held-out topics 626-650 |"]
    out.append("|---:|---|---:|---:|")
    chosen = None
    for spread in SPREADS:
        fits = []
        for share in (0.25, 0.5):
            cal, held = cases(first, share, spread), cases(second, share, spread)
            fits.append(coverage(cal) >= 0.95)
            out.append(f"| {spread} | {share:.0%} | {coverage(cal):.3f} | {coverage(held):.3f} |")
        if chosen is None and all(fits):
            chosen = spread
            break
    out.append(f"\nchosen: ADAPTIVE_SPREAD = {chosen}")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20, help="samples (or blind shuffles)")
    parser.add_argument(
        "--calibrate",
        action="store_true",
        help="choose the curve estimator's spread for adaptive orders (ADAPTIVE_SPREAD)",
    )
    args = parser.parse_args()
    start = time.perf_counter()
    lists, qrels = load()
    if args.calibrate:
        print("\n".join(calibrate(lists, qrels)))
        print(f"\n({time.perf_counter() - start:.0f} s)")
        return 0
    print("# Estimator coverage on TREC 2003 Robust, topics 601-650\n")
    print(f"Produced by `python benchmarks/estimator_coverage.py --seeds {args.seeds}`.\n")
    print("## (a) Sampling estimator (Horvitz-Thompson over a stratified sample)\n")
    print("| level | scenario | cases | coverage | median width | mean abs. error |")
    print("|---|---|---:|---:|---:|---:|")
    print("\n".join(sampling(lists, qrels, args.seeds)))
    print("\n## (b) Curve estimator (relevant left in the depth-100 pool), 95% intervals\n")
    print("| order | pool judged | cases | coverage | median width | mean abs. error |")
    print("|---|---|---:|---:|---:|---:|")
    print("\n".join(curves(lists, qrels, max(1, args.seeds // 2))))
    print(f"\n({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
