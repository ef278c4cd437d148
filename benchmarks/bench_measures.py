"""Evaluation speed, ENGINE ONLY: judgeapp's measure engine against pytrec_eval, inputs
already in memory, in one run. (The whole `evaluate` command from files is timed by
bench_evaluate.py; that is what a user runs.)

Three timed calls per case, alternated within each round (the order rotates every round),
median of --rounds rounds:

- pytrec_eval: `RelevanceEvaluator(qrels, measures)` and `evaluate(run)` for every run, on
  dicts (qid -> docno -> grade, qid -> docno -> score); the call includes pytrec_eval's own
  indexing of the qrels and its sorting of each ranking by score.
- judgeapp engine: `Evaluator(...).evaluate()` on document-id arrays that are already
  interned and already in trec_eval order (what `read_run` and the store hand it); the
  sorting and interning are NOT in this call.
- judgeapp from dicts: from the same dicts pytrec_eval gets, the docnos interned
  (Vocabulary), each ranking put in trec_eval order (`formats.run_lines.trec_order`), the arrays
  built (Judgments.from_arrays, Run.from_arrays), then evaluated: the same inputs as the
  peer's call, so the fairer engine comparison.

Cases, for trec_eval's default measure set (`official`) and for `all_trec` (pytrec_eval:
its `supported_measures`):

- the 17 Robust 2003 runs against their qrels (../shared/data/robust03, skipped if absent);
- a generated case: 100 runs x 50 topics x 1000 documents, graded qrels;

then the time to recompute one topic for all 100 generated runs after a judgment changes
(the GUI's live path, engine only, no peer), for `official`, `all_trec` and the
dashboard's default measures. Targets: >= 3x faster than pytrec_eval, one-topic
recompute < 5 ms.

    python benchmarks/bench_measures.py [--rounds N]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judgeapp.formats.run_lines import trec_order  # noqa: E402
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


def generated_case(n_runs=100, n_topics=50, depth=1000, n_docs=50_000, seed=7):
    """Graded qrels (about 300 judged documents per topic, a third relevant) and runs that
    retrieve relevant documents early more often than chance, with distinct scores.

    Returns (qids, judged: qid -> (doc indexes, grades), runs: [qid -> ranked doc indexes],
    docno: index -> docno); a run's document at rank i (from 0) has score depth - i."""
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
    return qids, judged, runs, docno


def generated_inputs(n_runs=100, n_topics=50, depth=1000):
    qids, judged, runs, docno = generated_case(n_runs, n_topics, depth)
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


def arrays_from_dicts(pyt_qrels, pyt_runs) -> tuple[Judgments, list[Run]]:
    """judgeapp's inputs built from the dicts pytrec_eval gets: docnos interned, each
    ranking put in trec_eval order by judgeapp's own `trec_order` (one call per run, as
    `read_run` does per file)."""
    vocab = Vocabulary()
    judgments = Judgments.from_arrays(
        {q: (vocab.ids(d), np.fromiter(d.values(), np.int64, len(d))) for q, d in pyt_qrels.items()}
    )
    runs = []
    for r, run in enumerate(pyt_runs):
        docnos: list[str] = []
        sizes = []
        for ranking in run.values():
            docnos.extend(ranking)
            sizes.append(len(ranking))
        scores = np.fromiter(
            (s for ranking in run.values() for s in ranking.values()), np.float64, len(docnos)
        )
        bounds = np.concatenate(([0], np.cumsum(sizes)))
        docnos, _, _ = trec_order(docnos, scores, np.arange(len(docnos)), bounds)
        ids = vocab.ids(docnos)
        runs.append(
            Run.from_arrays(
                f"run{r}", {q: ids[bounds[k] : bounds[k + 1]] for k, q in enumerate(run)}
            )
        )
    return judgments, runs


SIDES = ("pytrec_eval", "judgeapp engine", "judgeapp from dicts")


def compare(label, pyt, ours, rounds, rows):
    import pytrec_eval

    pyt_qrels, pyt_runs = pyt
    judgments, runs = ours
    for set_name, pyt_measures, our_measures in (
        ("official", PYTREC_OFFICIAL, parse_measures(["official"])),
        ("all_trec", set(pytrec_eval.supported_measures), parse_measures(["all_trec"])),
    ):

        def run_pytrec(pyt_measures=pyt_measures):
            ev = pytrec_eval.RelevanceEvaluator(pyt_qrels, pyt_measures)
            return [ev.evaluate(run) for run in pyt_runs]

        def run_engine(our_measures=our_measures):
            return Evaluator(judgments, runs, our_measures, EvalOptions()).evaluate()

        def run_from_dicts(our_measures=our_measures):
            j, r = arrays_from_dicts(pyt_qrels, pyt_runs)
            return Evaluator(j, r, our_measures, EvalOptions()).evaluate()

        fns = (run_pytrec, run_engine, run_from_dicts)
        times: list[list[float]] = [[] for _ in fns]
        results = [None] * len(fns)
        for k in range(rounds):
            for j in range(len(fns)):
                i = (k + j) % len(fns)  # rotate who goes first
                gc.collect()
                t0 = time.perf_counter()
                results[i] = fns[i]()
                times[i].append(time.perf_counter() - t0)
        check_map(label, results)
        rows.append((label, set_name, *(statistics.median(t) for t in times)))


def check_map(label, results) -> None:
    """Both sides computed the same thing: each run's MAP agrees to 4 decimals."""
    pyt, engine, from_dicts = results
    for r, per_topic in enumerate(pyt):
        theirs = float(np.mean([v["map"] for v in per_topic.values()]))
        for ours in (engine, from_dicts):
            mine = float(ours.summary()[ours.index("map"), r])
            if abs(theirs - mine) > 5e-5:
                sys.exit(f"{label}: MAP of run {r} differs: pytrec_eval {theirs}, judgeapp {mine}")


def recompute(ours, rounds: int) -> list[tuple[str, float, float]]:
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
        for _ in range(max(rounds * 20, 50)):
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
    parser.add_argument("--rounds", type=int, default=5, help="median of N rounds (default 5)")
    args = parser.parse_args()
    print(machine_load())
    rows: list[tuple[str, str, float, float, float]] = []
    if ROBUST.is_dir():
        pyt, ours, what = robust_inputs()
        print(f"Robust 2003: {what}")
        compare("robust03", pyt, ours, args.rounds, rows)
    else:
        print("Robust 2003 data not found beside the checkout: skipped")
    pyt, ours, what = generated_inputs()
    print(f"generated: {what}")
    compare("generated", pyt, ours, args.rounds, rows)

    print()
    print(f"ENGINE ONLY (inputs already in memory), median of {args.rounds} alternated rounds, s")
    print("  pytrec_eval:          its evaluator built from dicts + evaluate(); sorts by score")
    print("  judgeapp engine:      Evaluator.evaluate() on interned ids already in trec_eval order")
    print("  judgeapp from dicts:  the same dicts interned, ordered (trec_order), then evaluated")
    print(
        f"{'data':<10} {'measures':<9} {'pytrec_eval':>11} {'engine':>8} {'x':>6} "
        f"{'from dicts':>11} {'x':>6}"
    )
    for label, set_name, t_pyt, t_engine, t_dicts in rows:
        print(
            f"{label:<10} {set_name:<9} {t_pyt:>11.3f} {t_engine:>8.3f} "
            f"{t_pyt / t_engine:>5.1f}x {t_dicts:>11.3f} {t_pyt / t_dicts:>5.1f}x"
        )
    print("(x: pytrec_eval's time / judgeapp's; above 1 judgeapp is faster)")
    print(machine_load())
    print()
    print("one-topic recompute, ENGINE ONLY, 100 runs x 1000 docs, target < 5 ms")
    print("(wall median / wall max / CPU median: on a shared machine the wall clock also")
    print("counts waiting for a core):")
    for set_name, med, worst, cpu in recompute(ours, args.rounds):
        print(
            f"  {set_name:<9} {med * 1000:6.2f} ms / {worst * 1000:6.2f} ms / {cpu * 1000:6.2f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
