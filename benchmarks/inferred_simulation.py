"""How well the inferred measures estimate AP and nDCG from a stratified sample of the pool,
on the Robust 2003 topics 601-650 (judged for the 17 runs down to depth 125, so every
document of their depth-100 pool has its official grade).

    python benchmarks/inferred_simulation.py [--seeds 100] [--rates 0.1 0.2 0.3]

For each seed and sampling rate, each topic's depth-100 pool is sampled with judgeapp's
sampler (`sample_topic`: best-rank strata 1-10, 11-20, 21-40, 41-80, 81-100, the sample
split equally over them, drawn without replacement; seed `topic_seed(seed, qid)`), rate x
pool size documents. Only the sampled documents' grades are used:

- infAP: trec_eval's (through the engine), the pool's documents not sampled graded -1;
- xinfAP, infNDCG, statAP: judgeapp.measures.inferred, with the pool as the population.

The truth is each run's AP and nDCG (trec_eval's) with the whole depth-100 pool judged
(documents outside it not relevant). Each run's estimate is the mean over the 50 topics;
per measure and rate the table gives the bias (mean over seeds and runs of estimate minus
truth), the RMSE (over seeds and runs) and Kendall's tau between the runs' order by
estimate and by truth (scipy.stats.kendalltau, tau-b; mean and minimum over seeds).
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
from judgeapp.measures import EvalOptions, Evaluator, Judgments, Run, Vocabulary  # noqa: E402
from judgeapp.measures.inferred import TopicSample, inferred_measures  # noqa: E402
from judgeapp.pooling import depth_pool  # noqa: E402
from judgeapp.pooling.estimate import sample_topic, strata_of  # noqa: E402
from judgeapp.pooling.pools import topic_seed  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "robust03"
TOPICS = [str(q) for q in range(601, 651)]
DEPTH = 100
TARGET = {"infAP": "AP", "xinfAP": "AP", "statAP": "AP", "infNDCG": "nDCG"}


def load():
    vocab = Vocabulary()
    judged = Judgments.from_qrels(read_qrels(DATA / "robust03_qrels.txt"), vocab)
    names, lists = [], {}
    for path in sorted((DATA / "runs").glob("input.*.gz")):
        run = read_run(path)
        names.append(run.tag)
        lists[run.tag] = {q: vocab.ids(t.docnos) for q, t in run.topics.items() if q in TOPICS}
    return names, lists, judged


def pools(names, lists, judged):
    """Per topic: the runs' lists, the depth-100 pool with each document's stratum and
    official grade (0 when unjudged)."""
    empty = np.empty(0, np.int64)
    out = {}
    for qid in TOPICS:
        run_lists = [lists[r].get(qid, empty) for r in names]
        pool = depth_pool(qid, names, run_lists, DEPTH)
        tj = judged.topics[qid]
        order = np.argsort(tj.docids)
        ids, grades = tj.docids[order], tj.grades[order]
        pos = np.minimum(np.searchsorted(ids, pool.doc_ids), len(ids) - 1)
        grade = np.where(ids[pos] == pool.doc_ids, np.maximum(grades[pos], 0), 0)
        out[qid] = (run_lists, pool.doc_ids, strata_of(pool.best_rank), grade)
    return out


def evaluate(names, lists, topics: dict[str, tuple[np.ndarray, np.ndarray]], measures):
    """Per measure: (runs x topics) values of the engine."""
    judgments = Judgments.from_arrays(topics)
    runs = [Run(r, {q: lists[r][q] for q in topics if q in lists[r]}) for r in names]
    results = Evaluator(judgments, runs, measures, EvalOptions()).evaluate()
    cols = [results.qids.index(q) for q in TOPICS]
    return {m: results.values[i][:, cols] for i, m in enumerate(measures)}


def simulate(names, lists, topics, rate: float, seeds: int) -> dict[str, np.ndarray]:
    """Per measure: (seeds x runs) means over the topics."""
    out = {m: np.zeros((seeds, len(names))) for m in TARGET}
    for seed in range(seeds):
        per_topic = {m: np.zeros((len(names), len(TOPICS))) for m in TARGET}
        engine_topics = {}
        for t, qid in enumerate(TOPICS):
            run_lists, ids, strata, grade = topics[qid]
            size = max(round(rate * len(ids)), len(np.unique(strata)))
            drawn = sample_topic(
                qid, names, run_lists, depth=DEPTH, size=size, seed=topic_seed(seed, qid)
            ).doc_ids
            sampled = np.isin(ids, drawn)
            shown = np.where(sampled, grade, -1)
            values = inferred_measures(run_lists, TopicSample(ids, strata, shown))
            for m in ("xinfAP", "infNDCG", "statAP"):
                per_topic[m][:, t] = values[m]
            engine_topics[qid] = (ids, shown)  # -1: pooled, not sampled (trec_eval's infAP)
        per_topic["infAP"] = evaluate(names, lists, engine_topics, ["infAP"])["infAP"]
        for m in TARGET:
            out[m][seed] = per_topic[m].mean(axis=1)
    return out


def main(argv: list[str] | None = None) -> int:
    from scipy.stats import kendalltau

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--rates", type=float, nargs="+", default=[0.1, 0.2, 0.3])
    args = ap.parse_args(argv)
    started = time.perf_counter()
    names, lists, judged = load()
    topics = pools(names, lists, judged)
    full = {q: (ids, grade) for q, (_, ids, _, grade) in topics.items()}
    truth = {m: v.mean(axis=1) for m, v in evaluate(names, lists, full, ["AP", "nDCG"]).items()}
    pooled = sum(len(t[1]) for t in topics.values())
    print(
        f"Robust 2003, topics 601-650, {len(names)} runs; depth-{DEPTH} pool: {pooled} documents; "
        f"{args.seeds} seeds per rate; truth: the whole pool judged "
        f"(MAP {truth['AP'].min():.4f}-{truth['AP'].max():.4f}, "
        f"mean nDCG {truth['nDCG'].min():.4f}-{truth['nDCG'].max():.4f})\n"
    )
    print("| sampled | measure | estimates | bias | RMSE | Kendall's tau (mean) | tau (min) |")
    print("|---|---|---|---|---|---|---|")
    for rate in args.rates:
        est = simulate(names, lists, topics, rate, args.seeds)
        for m, target in TARGET.items():
            err = est[m] - truth[target][None, :]
            taus = [kendalltau(row, truth[target]).statistic for row in est[m]]
            print(
                f"| {rate:.0%} | {m} | {target} | {err.mean():+.4f} | "
                f"{np.sqrt((err**2).mean()):.4f} | {np.mean(taus):.3f} | {np.min(taus):.3f} |"
            )
        sys.stdout.flush()
    print(f"\n({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
