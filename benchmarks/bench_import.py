"""Import speed: the 17 TREC 2003 Robust runs into a new project, against a plain-Python
parse of the same files into dicts, and the time to load every ranked list back.

    python benchmarks/bench_import.py [--repeat 3]

Targets (issue 2): import <= 2x the plain parse; full load < 0.3 s for the ~1.5M entries.
Both sides read the same gzipped files in the same process; each figure is the best of
--repeat runs, so disk caching favours neither.
"""

from __future__ import annotations

import argparse
import gzip
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


def best_of(repeat: int, fn):
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    paths = sorted(RUNS.glob("input.*.gz"))
    if not paths:
        sys.exit(f"no runs under {RUNS}")
    t_plain, lines = best_of(args.repeat, lambda: plain_parse(paths))

    def do_import() -> Path:
        tmp = Path(tempfile.mkdtemp()) / "bench.db"
        with Store.open(tmp) as store:
            import_runs(store, paths)
        return tmp

    t_import, db = best_of(args.repeat, do_import)
    with Store.open(db) as store:
        t_load, lists = best_of(max(args.repeat, 5), store.load_ranked_lists)
    print(f"runs                 {len(paths)} files, {lines:,} lines")
    print(f"plain parse (peer)   {t_plain:7.3f} s   {lines / t_plain:12,.0f} lines/s")
    print(f"judgeapp import      {t_import:7.3f} s   {lines / t_import:12,.0f} lines/s")
    print(f"import / plain       {t_import / t_plain:7.2f}x   (target <= 2.00x)")
    print(f"load all lists       {t_load:7.3f} s   {lists.n_entries:,} entries (target < 0.300 s)")


if __name__ == "__main__":
    main()
