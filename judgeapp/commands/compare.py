"""`compare QRELS RUN... --baseline RUN -m MEASURE`: is a run really better than the baseline?

Per measure: each run's mean, its difference from the baseline, paired Cohen's d, a paired
t-test and a paired randomization test (seeded, 10,000 sign flips by default), and on
request the Wilcoxon signed-rank and sign tests, all corrected across the runs (Holm by
default; Bonferroni, Benjamini-Hochberg); with --bootstrap N, seeded bootstrap intervals
(BCa or percentile) for the means, the differences and d. `--all-pairs` compares every pair
with Tukey's HSD instead. --format markdown / latex print the table papers print: a run per
row, a measure per column, significance as superscripts. Statistics:
judgeapp.statistics.significance.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from judgeapp.commands import CommandError
from judgeapp.commands.evaluate import add_trec_options, evaluate

ORDER = 61


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="compare runs with a baseline: means, t-test, randomization test, effect size",
        description="Evaluate the runs and compare each with the baseline on every measure: "
        "mean, difference, paired Cohen's d (mean difference / its standard deviation), "
        "paired t-test and paired randomization test, with p-values corrected across runs "
        "(Holm, Bonferroni or none). '*' marks a corrected randomization p below --alpha.",
    )
    p.add_argument("qrels", nargs="?", metavar="QRELS", help="TREC qrels file")
    p.add_argument("run_files", nargs="*", metavar="RUN", help="TREC run files")
    p.add_argument(
        "--baseline",
        metavar="RUN",
        help="the baseline: one of the RUN files (path or runid), or another file",
    )
    p.add_argument(
        "--all-pairs",
        action="store_true",
        help="compare every pair of runs with Tukey's HSD (no baseline)",
    )
    p.add_argument(
        "--tests",
        default="t,rand",
        help="paired tests against the baseline, comma-separated among t, rand, wilcoxon, "
        "sign (default t,rand)",
    )
    p.add_argument(
        "--marks",
        default=None,
        help="the test whose corrected p marks significance (default: rand if run, else the "
        "first of --tests)",
    )
    p.add_argument(
        "--bootstrap",
        type=int,
        default=0,
        metavar="N",
        help="N bootstrap resamples for confidence intervals of means, differences and d "
        "(default 0: none)",
    )
    p.add_argument(
        "--ci",
        choices=("bca", "percentile"),
        default="bca",
        help="bootstrap interval method (default bca)",
    )
    p.add_argument(
        "--confidence", type=float, default=0.95, help="interval confidence (default 0.95)"
    )
    p.add_argument(
        "-m",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="measure to compare on (repeatable; default AP)",
    )
    p.add_argument(
        "--permutations",
        type=int,
        default=10_000,
        help="sign flips in the randomization test (default 10000)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--correction",
        choices=(
            "holm",
            "bonferroni",
            "bh",
            "by",
            "sidak",
            "holm-sidak",
            "hochberg",
            "hommel",
            "none",
        ),
        default="holm",
        help="multiple-comparison correction across runs (default holm; bh/by: "
        "Benjamini-Hochberg/-Yekutieli false discovery rate; sidak, holm-sidak, hochberg, "
        "hommel)",
    )
    p.add_argument(
        "--tukey",
        choices=("blocked", "randomised", "oneway"),
        default="blocked",
        help="with --all-pairs: Tukey's HSD with topics as blocks (two-way ANOVA; default), "
        "Carterette's randomised Tukey HSD (--permutations, --seed), or one-way (runs as "
        "independent groups, as ranx)",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="significance level for '*'")
    p.add_argument(
        "--format",
        dest="fmt",
        choices=("table", "csv", "json", "markdown", "latex"),
        default="table",
    )
    add_trec_options(p)
    p.set_defaults(handler=run)


def _baseline_index(names: list[str], runids: tuple[str, ...], baseline: str) -> int:
    for candidates in (names, list(runids)):
        if baseline in candidates:
            return candidates.index(baseline)
    raise CommandError(
        f"baseline {baseline!r} is neither a run file nor the runid of a RUN "
        f"(runids: {', '.join(runids)})"
    )


def _tests(args: argparse.Namespace) -> tuple[tuple[str, ...], str]:
    from judgeapp.statistics.significance import TESTS

    tests = tuple(t.strip() for t in args.tests.split(",") if t.strip())
    unknown = [t for t in tests if t not in TESTS]
    if unknown or not tests:
        raise CommandError(f"--tests takes some of {', '.join(TESTS)}, not {args.tests!r}")
    marks = args.marks or ("rand" if "rand" in tests else tests[0])
    if marks not in tests:
        raise CommandError(f"--marks {marks} is not among --tests")
    return tests, marks


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from judgeapp.statistics.significance import compare_all_pairs, compare_to_baseline

    if args.permutations < 1:
        raise CommandError("--permutations must be at least 1")
    if args.bootstrap < 0 or not 0 < args.confidence < 1:
        raise CommandError("--bootstrap must be 0 or more and --confidence between 0 and 1")
    if args.all_pairs == (args.baseline is not None):
        raise CommandError("give either --baseline RUN or --all-pairs")
    tests, marks = _tests(args)
    run_files = list(args.run_files)
    if (
        args.baseline
        and not args.db
        and args.baseline not in run_files
        and Path(args.baseline).is_file()
    ):
        run_files.insert(0, args.baseline)  # a baseline file not listed among RUN
    # else the baseline names a RUN by its runid (or its name with --db)
    results = evaluate(args, args.measures or ["AP"], run_files)
    from judgeapp.measures.report import run_labels

    paths = list(results.run_names)  # as given: --baseline may name a run by its path
    # tables name file runs by their runid (the file name where runids are shared)
    names = paths if args.db else list(run_labels(paths, results.runids))
    comparisons: list[Any] = []  # Comparison, or AllPairs with --all-pairs
    for i, m in enumerate(results.measures):
        if m.aggregate != "mean":
            raise CommandError(
                f"compare needs measures averaged over topics; {m.name} is a {m.aggregate}"
            )
        values = results.values[i].copy()
        values[~results.evaluated] = np.nan
        if args.all_pairs:
            comparisons.append(
                compare_all_pairs(
                    values,
                    names,
                    measure=m.name,
                    bootstrap=args.bootstrap,
                    interval=args.ci,
                    confidence=args.confidence,
                    seed=args.seed,
                    tukey=args.tukey,
                    permutations=args.permutations,
                )
            )
            continue
        comparisons.append(
            compare_to_baseline(
                values,
                names,
                _baseline_index(paths, results.runids, args.baseline),
                measure=m.name,
                permutations=args.permutations,
                seed=args.seed,
                correction=args.correction,
                tests=tests,
                bootstrap=args.bootstrap,
                interval=args.ci,
                confidence=args.confidence,
            )
        )
    from judgeapp.statistics import tables as report

    writer: Any
    if args.all_pairs:
        writer = {
            "table": report.pairs_table,
            "csv": report.pairs_csv,
            "json": report.pairs_json,
            "markdown": report.pairs_markdown,
            "latex": report.pairs_latex,
        }[args.fmt]
        if args.fmt == "json":
            sys.stdout.write(
                report.pairs_json(comparisons, args.alpha, args.seed, args.permutations)
            )
        else:
            sys.stdout.write(writer(comparisons, args.alpha))
        return 0
    if args.fmt in ("markdown", "latex"):
        paper = report.paper_markdown if args.fmt == "markdown" else report.paper_latex
        sys.stdout.write(paper(comparisons, args.alpha, marks))
        return 0
    if tests != ("t", "rand") or args.bootstrap or args.fmt == "json":  # one JSON layout
        writer = {"table": report.full_table, "csv": report.full_csv, "json": report.full_json}[
            args.fmt
        ]
        sys.stdout.write(writer(comparisons, args.alpha, marks))
        return 0
    writer = {"table": _table, "csv": _csv}[args.fmt]
    sys.stdout.write(writer(comparisons, args.alpha))
    return 0


def _rows(comparisons, alpha: float):
    for c in comparisons:
        sig = c.significant(alpha)
        for r, name in enumerate(c.runs):
            yield c, r, name, bool(sig[r])


def _table(comparisons, alpha: float) -> str:
    head = (*"measure run mean delta d t p(t) p(t,adj) p(rand) p(rand,adj)".split(), "")
    lines = [head]
    for c, r, name, sig in _rows(comparisons, alpha):
        if r == c.baseline:
            lines.append(
                (
                    c.measure,
                    name + " (baseline)",
                    f"{c.mean[r]:.4f}",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                )
            )
            continue
        lines.append(
            (
                c.measure,
                name,
                f"{c.mean[r]:.4f}",
                f"{c.delta[r]:+.4f}",
                f"{c.effect_size[r]:+.3f}",
                f"{c.t[r]:+.3f}",
                f"{c.p_t[r]:.4f}",
                f"{c.p_t_adjusted[r]:.4f}",
                f"{c.p_rand[r]:.4f}",
                f"{c.p_rand_adjusted[r]:.4f}",
                "*" if sig else "",
            )
        )
    widths = [max(len(row[k]) for row in lines) for k in range(len(head))]
    out = ["  ".join(cell.ljust(widths[k]) for k, cell in enumerate(row)).rstrip() for row in lines]
    c0 = comparisons[0]
    out.append(
        f"# {c0.topics} topics; randomization: {c0.permutations} sign flips, seed {c0.seed}; "
        f"correction: {c0.correction} across {len(c0.runs) - 1} run(s); d = paired "
        f"Cohen's d; * = corrected randomization p < {alpha}"
    )
    return "\n".join(out) + "\n"


def _csv(comparisons, alpha: float) -> str:
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        [
            "measure",
            "run",
            "baseline",
            "topics",
            "mean",
            "delta",
            "cohens_d",
            "t",
            "p_t",
            "p_t_adjusted",
            "p_rand",
            "p_rand_adjusted",
            "significant",
        ]
    )
    for c, r, name, sig in _rows(comparisons, alpha):
        w.writerow(
            [
                c.measure,
                name,
                c.runs[c.baseline],
                c.topics,
                f"{c.mean[r]:.6f}",
                f"{c.delta[r]:.6f}",
                f"{c.effect_size[r]:.6f}",
                f"{c.t[r]:.6f}",
                f"{c.p_t[r]:.6g}",
                f"{c.p_t_adjusted[r]:.6g}",
                f"{c.p_rand[r]:.6g}",
                f"{c.p_rand_adjusted[r]:.6g}",
                int(sig),
            ]
        )
    return buf.getvalue()
