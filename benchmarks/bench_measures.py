"""Evaluation speed: judgeapp's engine against pytrec_eval, in one run.

Both evaluate inputs already in memory in their own form (pytrec_eval: dicts of docno ->
score and docno -> grade; judgeapp: document-id arrays in trec_eval order), for trec_eval's
default measure set (`official`) and for `all_trec`, on

- the 17 Robust 2003 runs against their qrels (../shared/data/robust03, skipped if absent);
- a generated case: 100 runs x 50 topics x 1000 documents, graded qrels;

then the time to recompute one topic for all 100 generated runs after a judgment changes
(the GUI's live path), for `official`, `all_trec` and the dashboard's default measures. Targets: >= 3x faster than pytrec_eval on the full evaluations,
one-topic recompute < 5 ms.

    python benchmarks/bench_measures.py [--repeat N]
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

from judgeapp.measures import (  # noqa: E402
    DEFAULT_GUI_MEASURES,
    EvalOptions,
    Evaluator,
    Judgments,
    Run,
    Vocabulary,
)
from judgeapp.measures.parse import parse_measures  # noqa: E402

ROBUST = ROOT.parent / "shared" / "data" / "robust03"
PYTREC_OFFICIAL = set(
    "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall "
    "P".split()
)


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def robust_inputs():
    from judgeapp.formats import read_qrels, read_run

    qrels_file = read_qrels(ROBUST / "robust03_qrels.txt")
    run_files = [read_run(p) for p in sorted((ROBUST / "runs").glob("input.*.gz"))]
    pyt_qrels: dict[str, dict[str, int]] = {}
    for q, d, g in zip(qrels_file.qids, qrels_file.docnos, qrels_file.grades.tolist(), strict=True):
        pyt_qrels.setdefault(q, {})[d] = g
    pyt_runs = [
        {q: dict(zip(t.docnos, t.scores.tolist(), strict=True)) for q, t in rf.topics.items()}
        for rf in run_files
    ]
    vocab = Vocabulary()
    judgments = Judgments.from_qrels(qrels_file, vocab)
    runs = [Run.from_run_file(rf, vocab) for rf in run_files]
    entries = sum(rf.n_entries for rf in run_files)
    return (pyt_qrels, pyt_runs), (judgments, runs), f"{len(runs)} runs, {entries:,} entries"


def generated_inputs(n_runs=100, n_topics=50, depth=1000, n_docs=50_000, seed=7):
    """Graded qrels (about 300 judged documents per topic, a third relevant) and runs that
    retrieve relevant documents early more often than chance, with distinct scores."""
    rng = np.random.default_rng(seed)
    qids = [str(401 + t) for t in range(n_topics)]
    judged = {}
    for q in qids:
        docs = rng.choice(n_docs, 300, replace=False)
        grades = rng.choice([0, 0, 1, 2], size=300)
        judged[q] = (docs, grades)
    runs = []
    for r in range(n_runs):
        topics = {}
        for q in qids:
            docs, grades = judged[q]
            pool = np.concatenate([docs[grades > 0], rng.choice(n_docs, 2 * depth)])
            weight = np.concatenate([np.full((grades > 0).sum(), 1.0 + r % 5), np.ones(2 * depth)])
            order = np.argsort(-(rng.random(pool.size) ** (1.0 / weight)), kind="stable")
            ranked = pd_unique(pool[order])[:depth]
            topics[q] = ranked
        runs.append(topics)
    docno = [f"DOC{i:06d}" for i in range(n_docs)]
    pyt_qrels = {q: {docno[d]: int(g) for d, g in zip(*judged[q], strict=True)} for q in qids}
    pyt_runs = [
        {q: {docno[d]: float(depth - i) for i, d in enumerate(ids)} for q, ids in run.items()}
        for run in runs
    ]
    judgments = Judgments.from_arrays(judged)
    our_runs = [Run.from_arrays(f"run{r}", run) for r, run in enumerate(runs)]
    entries = sum(a.size for run in runs for a in run.values())
    return (
        (pyt_qrels, pyt_runs),
        (judgments, our_runs),
        (f"{n_runs} runs x {n_topics} topics x {depth} docs = {entries:,} entries"),
    )


def pd_unique(values: np.ndarray) -> np.ndarray:
    """Unique values in first-seen order."""
    _, first = np.unique(values, return_index=True)
    return values[np.sort(first)]


def compare(label, pyt, ours, repeat, rows):
    import pytrec_eval

    pyt_qrels, pyt_runs = pyt
    judgments, runs = ours
    for set_name, pyt_measures, our_measures in (
        ("official", PYTREC_OFFICIAL, parse_measures(["official"])),
        ("all_trec", set(pytrec_eval.supported_measures), parse_measures(["all_trec"])),
    ):

        def run_pytrec(pyt_measures=pyt_measures):
            ev = pytrec_eval.RelevanceEvaluator(pyt_qrels, pyt_measures)
            for run in pyt_runs:
                ev.evaluate(run)

        def run_ours(our_measures=our_measures):
            Evaluator(judgments, runs, our_measures, EvalOptions()).evaluate()

        t_pyt = best_of(repeat, run_pytrec)
        t_ours = best_of(repeat, run_ours)
        rows.append((label, set_name, t_pyt, t_ours))


def recompute(ours, repeat: int) -> list[tuple[str, float, float]]:
    judgments, runs = ours
    out = []
    sets = {"official": ["official"], "all_trec": ["all_trec"], "GUI": list(DEFAULT_GUI_MEASURES)}
    for set_name, names in sets.items():
        ev = Evaluator(judgments, runs, parse_measures(names), EvalOptions())
        ev.evaluate()
        qid = ev.qids[len(ev.qids) // 2]
        tj = judgments.topics[qid]
        rng = np.random.default_rng(1)
        wall, cpu = [], []
        for _ in range(max(repeat * 20, 50)):
            grades = tj.grades.copy()
            grades[rng.integers(grades.size)] = rng.integers(0, 3)  # one judgment changes
            ev.set_topic_judgments(qid, tj.docids, grades)
            t0, c0 = time.perf_counter(), time.process_time()
            ev.recompute_topic(qid)
            wall.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        out.append((set_name, statistics.median(wall), max(wall), statistics.median(cpu)))
    return out


def machine_load() -> str:
    try:
        import os

        return f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
    except OSError:
        return "load average unknown"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="best of N (default 3)")
    args = parser.parse_args()
    print(machine_load())
    rows: list[tuple[str, str, float, float]] = []
    if ROBUST.is_dir():
        pyt, ours, what = robust_inputs()
        print(f"Robust 2003: {what}")
        compare("robust03", pyt, ours, args.repeat, rows)
    else:
        print("Robust 2003 data not found beside the checkout: skipped")
    pyt, ours, what = generated_inputs()
    print(f"generated: {what}")
    compare("generated", pyt, ours, args.repeat, rows)

    print()
    print(f"{'data':<10} {'measures':<9} {'pytrec_eval s':>14} {'judgeapp s':>11} {'speed-up':>9}")
    for label, set_name, t_pyt, t_ours in rows:
        print(f"{label:<10} {set_name:<9} {t_pyt:>14.3f} {t_ours:>11.3f} {t_pyt / t_ours:>8.1f}x")
    print()
    print("one-topic recompute, 100 runs x 1000 docs, target < 5 ms (wall median / wall max /")
    print("CPU median: on a shared machine the wall clock also counts waiting for a core):")
    for set_name, med, worst, cpu in recompute(ours, args.repeat):
        print(
            f"  {set_name:<9} {med * 1000:6.2f} ms / {worst * 1000:6.2f} ms / {cpu * 1000:6.2f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
