"""`simulate --check-estimates` and `simulate --stop-at` on the report topics of every
collection: the tables of docs/estimators.md.

    python benchmarks/check_estimates.py [--only robust|classic] [--keep DIR] > tables.md

Runs the command itself (`judgeapp simulate`, in this process) for Robust 2003 at depths
100, 300 and 500 (the 17 runs, the official qrels; pooled documents the qrels lack count as
not relevant) and for Cranfield, CISI and CACM at depths 50 and 100 with the demo's seven
runs (resources/demo/make_runs.py, written afresh into a temporary folder). The topics are
the even-numbered ones: the built-in calibration was fitted on the odd-numbered ones
(benchmarks/estimator_coverage.py --calibrate curve). Orders: blind (three shuffles per
topic), mtf, maxmean, maxmean-shared, ridge-fusion; the estimator is asked at 25% and 50% of
each pool judged, at 80% and 95%; the stopping rule aims at 80% recall with 95% confidence.
Prints Markdown, and the wall and CPU time of each command with the load average.

With --own-calibration each command also replays the odd-numbered topics and calibrates on
them (`simulate --fit-topics`, the built-in calibration as a prior), as a project that had
judged those topics whole would; the report topics are the even-numbered ones still.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "resources" / "demo"))

from judgeapp.cli import main as judgeapp  # noqa: E402
from judgeapp.formats import read_qrels, read_run  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
ORDERS = "blind,mtf,maxmean,maxmean-shared,ridge-fusion"
CLASSIC = {  # name: (folder, documents, queries, qrels)
    "Cranfield": ("cranfield", "cran.all.1400", "cran.qry", "cranqrel"),
    "CISI": ("cisi", "CISI.ALL", "CISI.QRY", "CISI.REL"),
    "CACM": ("cacm", "cacm.all", "query.text", "qrels.text"),
}


def report_topics(qrels: Path, runs: list[Path], parity: int = 0) -> list[str]:
    """The even-numbered (parity 1: odd-numbered) topics the qrels judge and some run
    retrieved for."""
    judged = set(read_qrels(qrels).qids)
    retrieved = {q for path in runs for q in read_run(path).topics}
    return sorted((q for q in judged & retrieved if int(q) % 2 == parity), key=int)


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def check(
    name: str, qrels: Path, runs: list[Path], depth: int, keep: Path, own: bool = False
) -> list[str]:
    """One `simulate` command; its tables as Markdown."""
    out = keep / f"{name.lower().replace(' ', '-')}-{depth}{'-own' if own else ''}"
    topics = report_topics(qrels, runs)
    fit = report_topics(qrels, runs, parity=1) if own else []
    argv = ["simulate", "--qrels", str(qrels), "--runs", *map(str, runs)]
    argv += ["--depth", str(depth), "--strategy", ORDERS, "--out", str(out), "--no-bias"]
    argv += ["--check-estimates", "--seeds", "3", "--stop-at", "0.8", "--confidence", "0.95"]
    argv += ["--topics", *topics, *fit]
    if fit:
        argv += ["--fit-topics", *fit]
    wall, cpu = time.perf_counter(), cpu_seconds()
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = judgeapp(argv)
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    if code != 0:
        raise SystemExit(f"simulate failed for {name} at depth {depth}:\n{err.getvalue()}")
    summary = next(x for x in err.getvalue().splitlines() if " topics, " in x and "pooled" in x)
    load = os.getloadavg()[0]
    lines = [
        f"### {name}, depth {depth}{', own calibration' if own else ''}\n",
        f"{summary.strip()}. Report topics: {len(topics)} even-numbered ({topics[0]}-{topics[-1]}). "
        f"`simulate` took {wall:.0f} s wall, {cpu:.0f} s CPU (load average {load:.1f}).\n",
    ]
    with open(out / "estimate_coverage.tsv") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    lines += [
        "| order | judged | cases | 80% covers | 95% covers | 80% width | 95% width "
        "| uncalibrated |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    by = {(r["strategy"], r["judged_share"], r["level"]): r for r in rows}
    for strategy, share in dict.fromkeys((r["strategy"], r["judged_share"]) for r in rows):
        r80, r95 = by[strategy, share, "0.8"], by[strategy, share, "0.95"]
        lines.append(
            f"| {strategy} | {float(share):.0%} | {r80['cases']} | {float(r80['coverage']):.2f} "
            f"| {float(r95['coverage']):.2f} | {r80['median_width']} | {r95['median_width']} "
            f"| {r80['uncalibrated']} |"
        )
    pooled = {}
    for level in ("0.8", "0.95"):
        at = [r for r in rows if r["level"] == level]
        cases = sum(int(r["cases"]) for r in at)
        pooled[level] = sum(float(r["coverage"]) * int(r["cases"]) for r in at) / cases
    lowest = min(float(r["coverage"]) for r in rows if r["level"] == "0.95")
    lines.append(
        f"\nPooled over orders and shares: 80% intervals cover {pooled['0.8']:.3f}, 95% "
        f"intervals {pooled['0.95']:.3f}; the lowest cell at 95%: {lowest:.2f}.\n"
    )
    with open(out / "stopping.tsv") as fh:
        stops = list(csv.DictReader(fh, delimiter="\t"))
    lines += [
        "| order | topics | stopped at 80% recall or more | judgments | hindsight | ratio "
        "| judged whole |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in stops:
        lines.append(
            f"| {r['strategy']} | {r['topics']} | {float(r['reached']):.3f} "
            f"| {int(r['judgments']):,} | {int(r['hindsight']):,} | {r['ratio']} "
            f"| {r['judged_whole']} |"
        )
    lines.append("")
    print("\n".join(lines), flush=True)
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("robust", "classic"))
    parser.add_argument("--keep", type=Path, help="keep simulate's output folders here")
    parser.add_argument(
        "--own-calibration",
        action="store_true",
        help="calibrate on each collection's odd-numbered topics (simulate --fit-topics)",
    )
    parser.add_argument(
        "--depths",
        type=lambda text: {int(part) for part in text.split(",")},
        help="only these pool depths (comma-separated; Robust 2003: 100,300,500, others: 50,100)",
    )
    args = parser.parse_args()
    own = args.own_calibration
    wanted = args.depths
    with tempfile.TemporaryDirectory() as tmp:
        keep = args.keep or Path(tmp)
        if args.only != "classic":
            robust = SHARED / "robust03"
            runs = sorted((robust / "runs").glob("input.*.gz"))
            for depth in (100, 300, 500):
                if wanted and depth not in wanted:
                    continue
                check("Robust 2003", robust / "robust03_qrels.txt", runs, depth, keep, own)
        if args.only != "robust":
            from make_runs import make_runs

            for name, (folder, docs, queries, rels) in CLASSIC.items():
                where = SHARED / "collections" / folder
                made = Path(tmp) / f"runs-{folder}"
                made.mkdir()
                with contextlib.redirect_stdout(io.StringIO()):
                    runs = make_runs(where / docs, where / queries, made)
                for depth in (50, 100):
                    if wanted and depth not in wanted:
                        continue
                    check(name, where / rels, runs, depth, keep, own)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
