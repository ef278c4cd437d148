"""The recall estimators' intervals against the truth, and the curve estimator's built-in
calibration.

    python benchmarks/estimator_coverage.py --calibrate curve [--cache DIR]
        # fits judgeapp/pooling/calibration.json on the fit topics and writes it
    python benchmarks/estimator_coverage.py [--cache DIR]
        # the curve estimator on the report topics, and the sampling estimator
    python benchmarks/estimator_coverage.py --calibrate sample   # the sampling prior
    python benchmarks/estimator_coverage.py --stop-targets 0.9:0.9,0.7:0.95 [--on-fit-topics]
        # the stopping rule at other targets R:C, as `simulate --stop-at R --confidence C`

Collections (benchmarks/coverage_data.py): Robust 2003 (17 runs, official qrels; pooled
documents the qrels lack count as not relevant) at depths 100, 300 and 500 (pools of about
490, 1,370 and 2,250 documents a topic), and Cranfield, CISI and CACM with the demo's seven
runs at depths 50 and 100 (about 110-130 and 210-240).

(a) The curve estimator (docs/estimators.md). Its calibration is fitted on the
    odd-numbered topics of every collection and depth (FIT), and reported on the
    even-numbered ones: every judging order replays each topic with the qrels as the
    assessor (blind: BLIND_SEEDS shuffles), the estimator is asked as the window asks it at
    each share of the pool in SHARES, and each case's truth (the pool's relevant documents
    not judged yet) is placed in its predictive (judgeapp.pooling.calibration). Robust and
    the classic collections weigh the same in the fit (each depth of Robust a sixth, each
    classic collection and depth a twelfth), whatever their numbers of topics. The tail
    scale (every nominal tail read that much wider) is then chosen on the same fit topics:
    of 1.00-1.10, the one whose worst collection and depth lies nearest the middle of the
    bands (95% intervals 0.95, 80% ones 0.81) for the reported orders and shares.
(b) The sampling estimator: a stratified sample per topic (`sample_topic`), every sampled
    document judged, the rest hidden; the truth is the relevant documents of the
    population. (Its constants date from issue 17; groups as then: Robust 601-625 and
    Cranfield 1-100 tuned, the rest held out.)

The tables of `simulate --check-estimates` on the report topics are made by
benchmarks/check_estimates.py.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import coverage_data

from judgeapp.pooling import ORDERS as JUDGING_ORDERS
from judgeapp.pooling import PoolingError, depth_pool
from judgeapp.pooling.calibration import Calibration, fit_calibration
from judgeapp.pooling.estimate import _central, sample_estimate, sample_predictive, sample_topic
from judgeapp.pooling.simulate import (
    calibration_cases,
    check_estimates,
    grades_for,
    replay_topic,
    simulate,
)

ROOT = Path(__file__).resolve().parent.parent

# every order that judges by the runs alone (not by text or an automatic judge)
ORDERS = tuple(o for o, c in JUDGING_ORDERS.items() if not c.needs_text and o != "suggested")
REPORTED = ("blind", "mtf", "maxmean", "maxmean-shared", "ridge-fusion")
REPORT_SHARES = (0.25, 0.5)
LEVELS = (0.8, 0.95)
BLIND_SEEDS = 3
# collection: pool depths
DEPTHS = {"robust": (100, 300, 500), "cranfield": (50, 100), "cisi": (50, 100), "cacm": (50, 100)}
GROUPS = {
    "Robust 601-625 (tuning)": ("robust", lambda q: 601 <= int(q) <= 625),
    "Robust 626-650": ("robust", lambda q: 626 <= int(q) <= 650),
    "Robust 303-448": ("robust", lambda q: int(q) < 600),
    "Cranfield 1-100 (tuning)": ("cranfield", lambda q: int(q) <= 100),
    "Cranfield 101-225": ("cranfield", lambda q: int(q) > 100),
    "CISI": ("cisi", None),
    "CACM": ("cacm", None),
}


# the sampling estimator's prior before issue 17's intervals: Beta(0.2, 4), judged documents
# counting 0.7 (chosen on Robust 601-625 alone)
PREVIOUS_SAMPLE_PRIOR = (((1.0, 0.2, 4.0),), 0.7)


# -- cases --------------------------------------------------------------------------------------


def load() -> dict[str, tuple[dict, dict]]:
    data = {"robust": coverage_data.robust03()}
    for name in coverage_data.CLASSIC:
        data[name] = coverage_data.classic(name)
    return data


def topics_of(data, group: str) -> list[tuple[str, list[str], list[np.ndarray], tuple]]:
    """(qid, run names, run lists, qrels) of a group's topics that some run retrieved for."""
    source, keep = GROUPS[group]
    lists, qrels = data[source]
    names = list(lists)
    empty = np.empty(0, np.int64)
    out = []
    for qid in sorted(qrels, key=int):
        if keep is not None and not keep(qid):
            continue
        run_lists = [lists[r].get(qid, empty) for r in names]
        if any(len(x) for x in run_lists):
            out.append((qid, names, run_lists, qrels[qid]))
    return out


def fit_topic(qid: str) -> bool:
    """The calibration is fitted on the odd-numbered topics and reported on the others."""
    return int(qid) % 2 == 1


def collection_replays(data, source: str, depth: int, cache: Path | None) -> dict:
    """order -> [TopicReplay] (blind: BLIND_SEEDS shuffles one after another) of every
    topic of a collection some run retrieved for and the qrels judge, depth-`depth` pools."""
    return cached(cache, f"replays-{source}-{depth}", lambda: _replays(data, source, depth))


def _replays(data, source: str, depth: int) -> dict:
    lists, qrels = data[source]
    names = list(lists)
    empty = np.empty(0, np.int64)
    pool = {}
    for qid in sorted(qrels, key=int):
        run_lists = [lists[r].get(qid, empty) for r in names]
        if any(len(x) for x in run_lists):
            pool[qid] = depth_pool(qid, names, run_lists, depth)
    got: dict[str, list] = {}
    for order in ORDERS:
        for seed in range(BLIND_SEEDS if order == "blind" else 1):
            result = simulate([order], pool, lists, qrels, seed=seed)
            got.setdefault(order, []).extend(result[order])
    print(f"  replayed {source} depth {depth}", file=sys.stderr, flush=True)
    return got


def cached(cache: Path | None, name: str, make):
    """What `make()` returns, kept in `cache`/`name`.pickle: read from there when it is
    there, else made and written there (no cache: made every time)."""
    import pickle

    path = cache / f"{name}.pickle" if cache else None
    if path is not None and path.exists():
        with path.open("rb") as fh:
            return pickle.load(fh)
    got = make()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            pickle.dump(got, fh)
    return got


def split(results: dict, fit: bool) -> dict:
    return {o: [r for r in rs if fit_topic(r.qid) == fit] for o, rs in results.items()}


def sampling_scenarios(source: str):
    if source == "robust":
        return (
            ("60 drawn from the depth-100 pool", 100, 60, None),
            ("20 drawn from the depth-100 pool", 100, 20, None),
            ("first 100 in MTF order judged, 40 drawn from the rest", 100, 40, ("mtf", 100)),
            ("depth-50 pool judged, 40 drawn beyond it, to rank 125", 125, 40, ("depth", 50)),
        )
    return (
        ("30 drawn from the depth-50 pool", 50, 30, None),
        ("first 25 in MTF order judged, 20 drawn from the rest", 50, 20, ("mtf", 25)),
        ("depth-10 pool judged, 20 drawn beyond it, to rank 50", 50, 20, ("depth", 10)),
    )


def sample_cases(data, group: str, seeds: int):
    """(scenario, sampled topic, qrels, truth) of a group's topics."""
    source = GROUPS[group][0]
    for label, depth, size, first in sampling_scenarios(source):
        for qid, names, run_lists, (ids, grades) in topics_of(data, group):
            population = depth_pool(qid, names, run_lists, depth)
            truth = int(np.isin(ids[grades >= 1], population.doc_ids).sum())
            before = None
            if first is not None and first[0] == "mtf":
                pool = depth_pool(qid, names, run_lists, 100)
                by_run = dict(zip(names, run_lists, strict=True))
                before = replay_topic("mtf", pool, by_run, {qid: (ids, grades)}).order[: first[1]]
            elif first is not None:
                before = depth_pool(qid, names, run_lists, first[1]).doc_ids
            for seed in range(seeds):
                try:
                    topic = sample_topic(
                        qid, names, run_lists, depth=depth, size=size, judged=before, seed=seed
                    )
                except PoolingError:  # fewer documents beyond the judged ones than strata
                    continue
                # every sampled document judged; one the qrels lack counts as non-relevant
                # (the older Robust topics), as it does in the truth
                sampled, _ = grades_for(topic, {qid: (ids, grades)})
                yield label, topic, (topic.doc_ids, sampled), truth


# -- tables -------------------------------------------------------------------------------------


def summary(rows: list) -> tuple[int, str, str]:
    """(cases, 'new (before)' coverage, 'new (before)' median width) of rows of
    (before covers, new covers, before width, new width)."""
    a = np.array(rows, dtype=float)
    cover = f"{a[:, 1].mean():.2f} ({a[:, 0].mean():.2f})"
    width = f"{np.median(a[:, 3]):.0f} ({np.median(a[:, 2]):.0f})"
    return len(a), cover, width


def curve_report(data, cache: Path | None) -> list[str]:
    """Coverage on the report topics (`check_estimates`, as `simulate --check-estimates`
    computes it), pooled over the reported orders and both shares per collection and
    depth, and per order and share."""
    out = [
        "| collection | depth | cases | 80% covers | 95% covers | lowest 95% cell "
        "| uncalibrated cases |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    cells = []
    for source, depths in DEPTHS.items():
        for depth in depths:
            results = split(collection_replays(data, source, depth, cache), fit=False)
            results = {o: results[o] for o in REPORTED}
            rows = check_estimates(results, REPORT_SHARES, LEVELS)
            pooled = {
                lv: sum(r.coverage * r.cases for r in rows if r.level == lv)
                / sum(r.cases for r in rows if r.level == lv)
                for lv in LEVELS
            }
            cases = sum(r.cases for r in rows if r.level == LEVELS[0])
            loose = sum(r.uncalibrated for r in rows if r.level == LEVELS[0])
            worst = min(r.coverage for r in rows if r.level == 0.95)
            out.append(
                f"| {source} | {depth} | {cases} | {pooled[0.8]:.3f} | {pooled[0.95]:.3f} "
                f"| {worst:.2f} | {loose} |"
            )
            cells += [(source, depth, r) for r in rows]
    out += [
        "",
        "| collection | depth | order | judged | cases | 80% covers | 95% covers "
        "| 80% width | 95% width |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    by = {(c, d, r.strategy, r.share, r.level): r for c, d, r in cells}
    for c, d, strategy, share, level in by:
        if level != LEVELS[0]:
            continue
        r80, r95 = by[c, d, strategy, share, 0.8], by[c, d, strategy, share, 0.95]
        out.append(
            f"| {c} | {d} | {strategy} | {share:.0%} | {r80.cases} | {r80.coverage:.2f} "
            f"| {r95.coverage:.2f} | {r80.median_width:.0f} | {r95.median_width:.0f} |"
        )
    return out


def sample_table(data, seeds: int) -> list[str]:
    out = [
        "Coverage and median width of the intervals, new (before: one Beta(0.2, 4) prior, "
        "judged documents counting 0.7).\n",
        "| collection | scenario | cases | 80% coverage | 95% coverage | 80% width | 95% width |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for group in GROUPS:
        got: dict[tuple, list] = {}
        for label, topic, judged, truth in sample_cases(data, group, seeds):
            for level in LEVELS:
                prior, weight = PREVIOUS_SAMPLE_PRIOR
                before = sample_estimate(topic, judged, level=level, prior=prior, weight=weight)
                old = before.low, before.high
                new = sample_estimate(topic, judged, level=level)
                got.setdefault((label, level), []).append(
                    (
                        old[0] <= truth <= old[1],
                        new.low <= truth <= new.high,
                        old[1] - old[0],
                        new.high - new.low,
                    )
                )
        for label in dict.fromkeys(k[0] for k in got):
            (n, c80, w80), (_, c95, w95) = (summary(got[label, lv]) for lv in LEVELS)
            out.append(f"| {group} | {label} | {n} | {c80} | {c95} | {w80} | {w95} |")
        print(f"  sample: {group} done", file=sys.stderr, flush=True)
    return out


# -- calibration (tuning topics only) -----------------------------------------------------------

# the sampling prior's mixtures: the single Beta(0.2, 4) chosen before, and that component
# beside a broader one
SAMPLE_MIXTURES = [(((1.0, 0.2, 4.0),), 0.7)] + [
    (((share, 0.2, 4.0), (round(1.0 - share, 2), *broad)), weight)
    for share in (0.7, 0.8, 0.9)
    for broad in ((0.5, 0.5), (1.0, 1.0), (1.0, 3.0), (0.5, 2.0))
    for weight in (0.85, 1.0)
]
TUNING = "Robust 601-625 (tuning)"
BAND_MIDDLE = {0.8: 0.83, 0.95: 0.955}  # of the targets 0.78-0.88 and 0.93-0.98


def fit_cases(data, cache: Path | None) -> tuple[list, list[float], list[str], list]:
    """The calibration cases of the fit topics of every collection and depth, their weights
    (Robust and the classic collections weigh the same), a line per group and the groups
    ((source, depth, cases) each)."""

    groups = []
    for source, depths in DEPTHS.items():
        for depth in depths:

            def make(source=source, depth=depth):
                results = split(collection_replays(data, source, depth, cache), fit=True)
                got = calibration_cases(results)
                print(f"  cases of {source} depth {depth}", file=sys.stderr, flush=True)
                return got

            groups.append((source, depth, cached(cache, f"cases-{source}-{depth}", make)))
    per_family = {"robust": 0.5 / 3, "classic": 0.5 / 6}
    cases, weights, lines = [], [], []
    total = sum(len(g[2]) for g in groups)
    for source, depth, got in groups:
        share = per_family["robust" if source == "robust" else "classic"]
        weights += [share * total / len(got)] * len(got)
        cases += got
        sizes = [c.pool_size for c in got]
        lines.append(
            f"{source} depth {depth}: {len(got)} cases, pools of {min(sizes)}-{max(sizes)}"
        )
    return cases, weights, lines, groups


def write_table(calibration: Calibration, lines: list[str], path: Path) -> None:
    """The built-in calibration as data (judgeapp/pooling/calibration.json, read by
    judgeapp.pooling.estimate.builtin_calibration): one top-level key a line."""
    import json

    data = {
        "about": (
            "The curve estimator's built-in calibration (judgeapp.pooling.calibration). "
            "Written by `python benchmarks/estimator_coverage.py --calibrate curve`; do not "
            "edit. levels: low|high -> order -> rate bin -> found bucket -> share -> tail."
        ),
        "source": calibration.source,
        "fitted_on": lines,
        "shares": list(calibration.shares),
        "tails": list(calibration.tails),
        "sizes": list(calibration.sizes),
        "cases": calibration.cases,
        "rate_edges": list(calibration.rate_edges),
        "tail_scale": calibration.tail_scale,
        "low": calibration.low,
        "high": calibration.high,
    }
    body = ",\n".join(
        f" {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in data.items()
    )
    path.write_text("{\n" + body + "\n}\n")


# the tail scales tried, and the middle of the bands (76-86% and 93-97%) with their
# half widths
TAIL_SCALES = tuple(round(1.0 + 0.01 * i, 2) for i in range(11))
BAND = {0.8: (0.81, 0.05), 0.95: (0.95, 0.02)}


def fit_coverage(calibration: Calibration, cases) -> dict[float, float]:
    """Coverage per level of the fit cases of the reported orders at the reported shares:
    a case's interval holds its truth when its PIT u lies strictly between the levels the
    ends are read at (a < u < 1 - c: the lowest count read at a is the first whose mid-p
    level exceeds a, so the truth is at or above it exactly when u > a; the upper end
    likewise), as `check_estimates` counts it."""
    chosen = [c for c in cases if c.order in REPORTED and c.share in REPORT_SHARES]
    out = {}
    for level in LEVELS:
        tail = (1.0 - level) / 2.0
        hits = 0
        for c in chosen:
            a, high = calibration.levels(c.order, c.share, c.found, tail, judged=c.judged)
            hits += a < c.pit < 1.0 - high
        out[level] = hits / len(chosen)
    return out


def choose_tail_scale(calibration: Calibration, groups) -> tuple[float, list[str]]:
    """The tail scale (TAIL_SCALES) whose worst collection and depth lies nearest the middle
    of the bands on the fit topics (distance in half widths, the worse of the two levels);
    of scales equally good, the middle one."""
    import dataclasses

    scores, out = [], []
    for scale in TAIL_SCALES:
        scaled = dataclasses.replace(calibration, tail_scale=scale)
        covers = [(f"{s} {d}", fit_coverage(scaled, got)) for s, d, got in groups]
        worst = max(
            abs(cover[level] - BAND[level][0]) / BAND[level][1]
            for _, cover in covers
            for level in LEVELS
        )
        scores.append(round(worst, 3))
        out.append(
            f"tail scale {scale:.2f}: worst {worst:.3f}; "
            + ", ".join(f"{name} {c[0.8]:.3f}/{c[0.95]:.3f}" for name, c in covers)
        )
    best = [s for s, w in zip(TAIL_SCALES, scores, strict=True) if w == min(scores)]
    return best[len(best) // 2], out


def calibrate_curve(data, cache: Path | None) -> list[str]:
    import dataclasses

    cases, weights, lines, groups = fit_cases(data, cache)
    source = (
        "built in: odd-numbered topics of Robust 2003 (depths 100-500) and of Cranfield, "
        "CISI and CACM (depths 50-100)"
    )
    calibration = fit_calibration(cases, source, weights=weights)
    scale, report = choose_tail_scale(calibration, groups)
    calibration = dataclasses.replace(calibration, tail_scale=scale)
    write_table(calibration, lines, ROOT / "judgeapp" / "pooling" / "calibration.json")
    return [
        *lines,
        *report,
        f"chosen tail scale: {scale}",
        f"keys: {', '.join(calibration.low)}",
        f"sizes: {calibration.sizes}",
    ]


# the stopping rule's margin: multipliers of 1 - C for the one-sided bound's tail
STOP_TAILS = (1.0, 0.5, 0.25, 0.1, 0.05, 0.02)
STOP_TARGET, STOP_CONFIDENCE = 0.8, 0.95


def stop_bounds(strategy: str, replay) -> list[tuple[int, int, list[int]]]:
    """(judged, found, upper bound for each of STOP_TAILS) at every check of the rule."""
    from judgeapp.pooling.simulate import replay_fit, stop_step

    out = []
    step = stop_step(replay.pool_size)
    for n in range(step, replay.pool_size, step):
        fit = replay_fit(strategy, replay, n)
        tails = [(1.0 - STOP_CONFIDENCE) * m for m in STOP_TAILS]
        out.append((n, fit.total_found, [fit.bounds(t)[1] for t in tails]))
    return out


def calibrate_stop(data, cache: Path | None) -> list[str]:
    """STOP_TAIL: on the fit topics of every collection and depth, the stopping rule for
    80% recall at 95% confidence replayed with each margin in STOP_TAILS (one pass: the
    bounds at every check for every margin); the share of topics stopped at 80% recall or
    more and the judgments spent against hindsight, per order. The largest margin whose
    share is at least 0.95 for every order everywhere is STOP_TAIL."""

    out = [
        "| collection | depth | order | topics | "
        + " | ".join(f"x{m:g}: reached / cost" for m in STOP_TAILS)
        + " |",
        "|---|---:|---|---:|" + "---:|" * len(STOP_TAILS),
    ]
    worst = {m: 1.0 for m in STOP_TAILS}
    for source, depths in DEPTHS.items():
        for depth in depths:

            def make(source=source, depth=depth):
                results = split(collection_replays(data, source, depth, cache), fit=True)
                checks = {
                    o: [(r, stop_bounds(o, r)) for r in rs]
                    for o, rs in results.items()
                    if o in REPORTED
                }
                print(f"  stopping bounds of {source} depth {depth}", file=sys.stderr, flush=True)
                return checks

            checks = cached(cache, f"stops-{source}-{depth}", make)
            for order, replays in checks.items():
                cells = []
                for i, m in enumerate(STOP_TAILS):
                    reached = spent = hindsight = 0
                    for replay, bounds in replays:
                        n = next(
                            (
                                n
                                for n, found, upper in bounds
                                if found + upper[i] == 0
                                or found / (found + upper[i]) >= STOP_TARGET - 1e-12
                            ),
                            replay.pool_size,
                        )
                        found = int(replay.found[n - 1])
                        reached += (
                            replay.relevant == 0 or found >= STOP_TARGET * replay.relevant - 1e-9
                        )
                        spent += n
                        hindsight += replay.judgments_needed(STOP_TARGET)
                    share = reached / len(replays)
                    worst[m] = min(worst[m], share)
                    cells.append(f"{share:.3f} / {spent / max(hindsight, 1):.2f}")
                out.append(
                    f"| {source} | {depth} | {order} | {len(replays)} | " + " | ".join(cells) + " |"
                )
    chosen = max((m for m in STOP_TAILS if worst[m] >= STOP_CONFIDENCE), default=None)
    out.append(f"\nlowest share per margin: {worst}; STOP_TAIL = {chosen}")
    return out


def _stops(model, target: float, confidence: float, margin: float | None = None) -> bool:
    """Whether the stopping rule says stop (`CurveFit.stop_advice`), with the margin
    `margin` instead of STOP_TAIL when given."""
    if margin is None:
        return model.stop_advice(target, confidence).stop
    bound = model.bounds((1.0 - confidence) * margin)[1]
    total = model.total_found + bound
    return (model.total_found / total if total else 1.0) >= target - 1e-12


def stop_targets(
    data,
    cache: Path | None,
    pairs: list[tuple],
    fit: bool = False,
    only: list[str] | None = None,
) -> list[str]:
    """The stopping rule on the report topics (`fit`: the fit topics) at each target recall R and confidence C of
    `pairs`, as `simulate --stop-at R --confidence C` replays it (`check_stopping`: the
    built-in calibration, checked at every `stop_step`), all pairs in one pass over each
    topic's checks: per order, the share of topics stopped at R or more (must be at least
    C), and the judgments spent against the fewest that reached R (hindsight)."""
    from judgeapp.pooling.simulate import replay_fit, stop_step

    head = " | ".join(
        f"R {p[0]:g}, C {p[1]:g}{f', margin {p[2]:g}' if len(p) > 2 else ''}: reached, "
        "judgments / hindsight"
        for p in pairs
    )
    out = [
        f"| collection | depth | order | topics | {head} |",
        "|---|---:|---|---:|" + "---|" * len(pairs),
    ]
    lowest = {pair: (1.0, "") for pair in pairs}
    for source, depths in DEPTHS.items():
        for depth in depths:
            if only and source not in only and f"{source}:{depth}" not in only:
                continue
            results = split(collection_replays(data, source, depth, cache), fit=fit)
            for order in REPORTED:
                tally = {pair: [0, 0, 0] for pair in pairs}  # reached, spent, hindsight
                for replay in results[order]:
                    size, step = replay.pool_size, stop_step(replay.pool_size)
                    stopped = dict.fromkeys(pairs, size)
                    waiting = list(pairs)
                    for n in range(step, size, step):
                        model = replay_fit(order, replay, n)
                        for pair in list(waiting):
                            if _stops(model, *pair):
                                stopped[pair] = n
                                waiting.remove(pair)
                        if not waiting:
                            break
                    for pair, n in stopped.items():
                        target = pair[0]
                        found = int(replay.found[n - 1])
                        recall = found / replay.relevant if replay.relevant else 1.0
                        got = tally[pair]
                        got[0] += recall >= target - 1e-12
                        got[1] += n
                        got[2] += replay.judgments_needed(target)
                topics = len(results[order])
                cells = []
                for pair in pairs:
                    reached, spent, hindsight = tally[pair]
                    share = reached / topics
                    if share < lowest[pair][0]:
                        lowest[pair] = (share, f"{source} {depth} {order}")
                    cells.append(
                        f"{share:.3f}, {spent:,} / {hindsight:,} ({spent / max(hindsight, 1):.2f}x)"
                    )
                out.append(
                    f"| {source} | {depth} | {order} | {topics} | " + " | ".join(cells) + " |"
                )
                print(out[-1], file=sys.stderr, flush=True)
            print(f"  stopping targets of {source} depth {depth}", file=sys.stderr, flush=True)
    out.append("")
    for pair, (share, where) in lowest.items():
        out.append(f"{pair}: lowest share stopped at R or more {share:.3f} ({where})")
    return out


def calibrate_sample(data, seeds: int) -> list[str]:
    """The sampling prior (a mixture of Beta components) and weight on the tuning topics,
    Robust 601-625 and Cranfield 1-100: of the grid's mixtures, those with the fewest
    scenarios whose 80% or 95% coverage (as reported, two decimals) lies outside the target
    bands, and of those the best mean log predictive score. (Before, the single Beta(0.2,
    4) with weight 0.7 was chosen on Robust 601-625 alone, over a = 0.1-0.5, b = 0.5-8 and
    weights 0.5-1 (results file); it is the first row here.)"""
    samples = [
        (group, *case)
        for group in (TUNING, "Cranfield 1-100 (tuning)")
        for case in sample_cases(data, group, seeds)
    ]
    out = [
        "| prior (weight, a, b), ... | judged weight | mean log score | scenarios out of band "
        "| 80% / 95% coverage per scenario |",
        "|---|---:|---:|---:|---|",
    ]
    best = None
    for prior, weight in SAMPLE_MIXTURES:
        scores, hits = [], {}
        for group, label, topic, judged, truth in samples:
            _point, seen, unseen = sample_predictive(topic, judged, prior=prior, weight=weight)
            scores.append(math.log(max(unseen[truth - seen], 1e-12)))
            for level in LEVELS:
                low, high = _central(unseen, level)
                hits.setdefault((group, label, level), []).append(low <= truth - seen <= high)
        score = float(np.mean(scores))
        cover = {k: round(float(np.mean(h)), 2) for k, h in hits.items()}
        out_of_band = sum(
            not (0.78 <= cover[g, lb, 0.8] <= 0.88 and 0.93 <= cover[g, lb, 0.95] <= 0.98)
            for g, lb, lv in cover
            if lv == 0.8
        )
        cells = " ".join(
            f"{cover[g, lb, 0.8]:.2f}/{cover[g, lb, 0.95]:.2f}" for g, lb, lv in cover if lv == 0.8
        )
        out.append(f"| {prior} | {weight} | {score:.4f} | {out_of_band} | {cells} |")
        key = (-out_of_band, score)
        if best is None or key > best[0]:
            best = (key, (prior, weight))
    out.append(f"\nchosen: SAMPLE_PRIOR, SAMPLE_WEIGHT = {best[1] if best else None}")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10, help="samples per topic and scenario")
    parser.add_argument(
        "--calibrate",
        choices=("curve", "stop", "sample"),
        help="fit the curve estimator's built-in calibration, choose the stopping rule's "
        "margin, or choose the sampling prior",
    )
    parser.add_argument("--cache", type=Path, help="keep the replays in this folder")
    parser.add_argument("--only", choices=("curve", "sample"), help="report one estimator")
    parser.add_argument(
        "--stop-targets",
        help="the stopping rule on the report topics at these R:C pairs (0.9:0.9,0.7:0.95; "
        "R:C:M: with the margin M instead of STOP_TAIL)",
    )
    parser.add_argument(
        "--on-fit-topics", action="store_true", help="--stop-targets on the fit topics"
    )
    parser.add_argument(
        "--collections",
        help="--stop-targets on these only (cacm,cisi,robust:100: all depths or one)",
    )
    args = parser.parse_args()
    start = time.perf_counter()
    data = load()
    if args.stop_targets:
        pairs = [tuple(map(float, x.split(":"))) for x in args.stop_targets.split(",")]
        only = args.collections.split(",") if args.collections else None
        print("\n".join(stop_targets(data, args.cache, pairs, args.on_fit_topics, only)))
    elif args.calibrate == "curve":
        print("\n".join(calibrate_curve(data, args.cache)))
    elif args.calibrate == "stop":
        print("\n".join(calibrate_stop(data, args.cache)))
    elif args.calibrate == "sample":
        print("\n".join(calibrate_sample(data, args.seeds)))
    else:
        print("# Estimator coverage\n")
        print(f"Produced by `python benchmarks/estimator_coverage.py --seeds {args.seeds}`.\n")
        if args.only != "sample":
            print("## (a) Curve estimator, report topics (even-numbered)\n")
            print("\n".join(curve_report(data, args.cache)))
        if args.only != "curve":
            print("\n## (b) Sampling estimator (Horvitz-Thompson over a stratified sample)\n")
            print("\n".join(sample_table(data, args.seeds)))
    print(f"\n({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
