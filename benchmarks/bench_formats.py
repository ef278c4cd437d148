"""Reader speed: `read_run` on the 17 TREC 2003 Robust runs against a plain-Python parse of
the same files into dicts (the peer), both in this process.

    python benchmarks/bench_formats.py [--repeat 5]

`read_run` does more than the peer: it validates every line (column count, number syntax,
duplicate docnos), keeps line numbers, and puts every topic in trec_eval order (score
descending, ties by docno descending). Target (issue 2 brief): at most 1.3x the plain parse.
Each figure is the median of --repeat rounds, alternating the two sides (the first one
changing every round), so neither profits from a warmer cache. Also prints the qrels reader against the same kind of plain parse.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_import import plain_parse  # noqa: E402  (the same peer as the import benchmark)

from judgeapp.formats import read_qrels, read_run  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
RUNS = DATA / "robust03" / "runs"
QRELS = [DATA / "robust03" / "robust03_qrels.txt", *sorted((DATA / "qrels").glob("*.txt"))]


def judgeapp_runs(paths: list[Path]) -> int:
    return sum(read_run(p).n_lines for p in paths)


def plain_qrels(paths: list[Path]) -> int:
    lines = 0
    for path in paths:
        qrels: dict[str, dict[str, int]] = {}
        with open(path) as fh:
            for line in fh:
                p = line.split()
                qrels.setdefault(p[0], {})[p[2]] = int(p[3])
                lines += 1
    return lines


def judgeapp_qrels(paths: list[Path]) -> int:
    return sum(len(read_qrels(p)) for p in paths)


def race(repeat: int, peer: Callable[[], int], ours: Callable[[], int]) -> tuple[float, float, int]:
    times: dict[str, list[float]] = {"peer": [], "ours": []}
    counts: dict[str, int] = {}
    sides = [("peer", peer), ("ours", ours)]
    for k in range(repeat):
        for which, fn in sides if k % 2 == 0 else sides[::-1]:
            gc.collect()
            start = time.perf_counter()
            counts[which] = fn()
            times[which].append(time.perf_counter() - start)
        if counts["peer"] != counts["ours"]:
            sys.exit(f"line counts differ: peer {counts['peer']}, judgeapp {counts['ours']}")
    return statistics.median(times["peer"]), statistics.median(times["ours"]), counts["peer"]


def report(title: str, peer: float, ours: float, lines: int, target: str) -> None:
    print(title)
    print(f"  plain parse (peer)  {peer:7.3f} s  {lines / peer:12,.0f} lines/s")
    print(f"  judgeapp reader     {ours:7.3f} s  {lines / ours:12,.0f} lines/s")
    print(f"  reader / plain      {ours / peer:7.2f}x  {target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    runs = sorted(RUNS.glob("input.*.gz"))
    if not runs:
        sys.exit(f"no runs under {RUNS}")
    peer, ours, lines = race(args.repeat, lambda: plain_parse(runs), lambda: judgeapp_runs(runs))
    report(f"read_run: {len(runs)} runs, {lines:,} lines", peer, ours, lines, "(target <= 1.30x)")
    qrels = [p for p in QRELS if p.exists()]
    peer, ours, lines = race(args.repeat, lambda: plain_qrels(qrels), lambda: judgeapp_qrels(qrels))
    report(f"read_qrels: {len(qrels)} files, {lines:,} lines", peer, ours, lines, "")


if __name__ == "__main__":
    main()
