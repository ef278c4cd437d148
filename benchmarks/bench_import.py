"""Import speed: the 17 TREC 2003 Robust runs into a new project, against a plain-Python
parse of the same files into dicts, and the time to load every ranked list back.

    python benchmarks/bench_import.py [--repeat 3]

Targets (issue 2): import <= 2x the plain parse; full load < 0.3 s for the ~1.5M entries.
Both sides read the same gzipped files in the same process, alternating round by round
(--repeat rounds, the first side changing every round), so disk caching and the machine's
load favour neither; the figures are medians of the rounds. The load back is the median
of five.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judgeapp.services.imports import import_runs  # noqa: E402
from judgeapp.store import Store  # noqa: E402

RUNS = ROOT.parent / "shared" / "data" / "robust03" / "runs"


def plain_parse(paths: list[Path]) -> int:
    """The peer: what a script would do without judgeapp (no validation, no sorting)."""
    lines = 0
    for path in paths:
        run: dict[str, dict[str, float]] = {}
        with gzip.open(path, "rt") as fh:
            for line in fh:
                p = line.split()
                run.setdefault(p[0], {})[p[2]] = float(p[4])
                lines += 1
    return lines


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    paths = sorted(RUNS.glob("input.*.gz"))
    if not paths:
        sys.exit(f"no runs under {RUNS}")

    def do_import() -> Path:
        tmp = Path(tempfile.mkdtemp()) / "bench.db"
        with Store.open(tmp) as store:
            import_runs(store, paths)
        return tmp

    # the two sides alternate, so a change in the machine's load hits both alike; the
    # ratio of each pair is kept, and the median pair is reported beside the best times
    plain_times, import_times, ratios = [], [], []
    for k in range(args.repeat):
        if k % 2:
            t_import, db = timed(do_import)
            t_plain, lines = timed(lambda: plain_parse(paths))
        else:
            t_plain, lines = timed(lambda: plain_parse(paths))
            t_import, db = timed(do_import)
        plain_times.append(t_plain)
        import_times.append(t_import)
        ratios.append(t_import / t_plain)
    with Store.open(db) as store:
        loads = [timed(store.load_ranked_lists) for _ in range(5)]
    t_load = statistics.median(t for t, _ in loads)
    entries = loads[0][1].n_entries
    t_plain, t_import = statistics.median(plain_times), statistics.median(import_times)
    print(f"runs                 {len(paths)} files, {lines:,} lines, {args.repeat} rounds")
    print(f"plain parse (peer)   {t_plain:7.3f} s   {lines / t_plain:12,.0f} lines/s  (median)")
    print(f"judgeapp import      {t_import:7.3f} s   {lines / t_import:12,.0f} lines/s  (median)")
    print(f"import / plain       {t_import / t_plain:7.2f}x   median vs median (target <= 2.00x)")
    print(f"                     {statistics.median(ratios):7.2f}x   median of the rounds' ratios")
    print(
        f"load all lists       {t_load:7.3f} s   {entries:,} entries, median of 5 (target < 0.300 s)"
    )


if __name__ == "__main__":
    main()
