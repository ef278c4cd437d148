"""Import speed, the whole command from the files: `python main.py import run` of the 17 TREC
2003 Robust runs into a new project, against a plain-Python parse of the same files into
dicts (the peer), each side a fresh process; then the time to load every ranked list back;
then (--trec8) a TREC-8-sized import: 115 generated runs x 50 topics x 1000 documents.

    python benchmarks/bench_import.py [--rounds 3] [--trec8] [--only-trec8]

Targets (issue 14): the import at least 2x faster than the plain parse; the TREC-8-sized
import under 10 s with peak memory under 1 GB; loading every list back < 0.3 s (issue 2).
The sides alternate (the first changing every round) and the figures are medians of the
rounds; peak memory is each process's own maximum resident set (benchmarks/peak_rss.py).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from peak_rss import PeakRss  # noqa: E402  (beside this file)

from judgeapp.store import Store  # noqa: E402

RUNS = ROOT.parent / "shared" / "data" / "robust03" / "runs"

# The peer: what a script would do without judgeapp (no validation, no sorting).
PLAIN = r"""
import gzip, sys
lines = 0
for path in sys.argv[1:]:
    run = {}
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as fh:
        for line in fh:
            p = line.split()
            run.setdefault(p[0], {})[p[2]] = float(p[4])
            lines += 1
print(lines)
"""


def plain_parse(paths: list[Path]) -> int:
    """The peer in this process (bench_formats compares the readers with it)."""
    import gzip

    lines = 0
    for path in paths:
        run: dict[str, dict[str, float]] = {}
        with gzip.open(path, "rt") as fh:
            for line in fh:
                p = line.split()
                run.setdefault(p[0], {})[p[2]] = float(p[4])
                lines += 1
    return lines


def run_timed(cmd: list[str]) -> tuple[float, int, str]:
    """(wall seconds, peak RSS in MiB, stdout) of a fresh process."""
    peak = PeakRss()  # the command's own peak, not this process's (see peak_rss)
    start = time.perf_counter()
    proc = subprocess.Popen(
        peak.wrap(cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
    )
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - start
    out = proc.stdout.read().decode() if proc.stdout else ""
    if os.waitstatus_to_exitcode(status):
        err = proc.stderr.read().decode() if proc.stderr else ""
        sys.exit(f"failed: {' '.join(cmd[:5])} ...\n{err}")
    return took, peak.mib(usage), out.strip()


def race(paths: list[Path], rounds: int, tmp: Path) -> dict[str, list]:
    """Alternating rounds of `import run` into a new project and the plain parse."""
    py = sys.executable
    files = [str(p) for p in paths]
    out: dict[str, list] = {"judgeapp": [], "peer": [], "judgeapp_rss": [], "peer_rss": []}
    for k in range(rounds):
        for side in ("judgeapp", "peer") if k % 2 == 0 else ("peer", "judgeapp"):
            if side == "judgeapp":
                db = tmp / f"import-{k}.db"
                cmd = [py, "main.py", "import", "run", str(db), *files, "--create"]
            else:
                cmd = [py, "-c", PLAIN, *files]
            took, peak, _ = run_timed(cmd)
            out[side].append(took)
            out[f"{side}_rss"].append(peak)
            if side == "judgeapp" and k < rounds - 1:
                db.unlink()
    out["db"] = [db]
    return out


def write_trec8(
    folder: Path, n_runs: int = 115, n_topics: int = 50, depth: int = 1000
) -> list[Path]:
    """TREC-8-sized runs: 115 runs x 50 topics x 1000 documents over a collection of
    528,155 documents (TREC disks 4-5) named like them (FBIS3-1234, LA010189-0001, ...);
    runs share documents as real ones do (each ranks a noisy copy of a hidden relevance)."""
    rng = np.random.default_rng(8)
    n_docs = 528_155
    prefixes = np.array(["FBIS3-", "FBIS4-", "FR940104-0-", "FT911-", "LA010189-"])
    which = rng.integers(0, len(prefixes), n_docs)
    docno = np.char.add(prefixes[which], np.arange(n_docs).astype(str))
    paths = []
    candidates = [rng.choice(n_docs, 20_000, replace=False) for _ in range(n_topics)]
    truths = [rng.standard_normal(20_000) for _ in range(n_topics)]
    quality = rng.uniform(0.3, 3.0, n_runs)
    for r in range(n_runs):
        path = folder / f"input.run{r:03d}"
        with open(path, "w") as f:
            for t in range(n_topics):
                noisy = quality[r] * truths[t] + rng.standard_normal(20_000) * 3.0
                top = np.argpartition(-noisy, depth)[:depth]
                order = top[np.argsort(-noisy[top])]
                scores = np.round(noisy[order] * 1000) / 1000
                names = docno[candidates[t][order]]
                rows = [
                    f"{401 + t} Q0 {d} {i + 1} {s:.3f} run{r:03d}\n"
                    for i, (d, s) in enumerate(zip(names.tolist(), scores.tolist(), strict=True))
                ]
                f.write("".join(rows))
        paths.append(path)
    return paths


def load() -> str:
    return f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"


def report(label: str, lines: int, res: dict[str, list]) -> None:
    ours, peer = statistics.median(res["judgeapp"]), statistics.median(res["peer"])
    print(label)
    print(f"  judgeapp import run   {ours:7.2f} s  {max(res['judgeapp_rss']):5} MiB peak")
    print(f"  plain parse (peer)    {peer:7.2f} s  {max(res['peer_rss']):5} MiB peak")
    print(f"  peer/judgeapp {peer / ours:.2f}x (above 1: judgeapp is faster; {lines:,} lines)")
    rounds = ", ".join(
        f"{a:.2f}/{b:.2f}" for a, b in zip(res["judgeapp"], res["peer"], strict=True)
    )
    print(f"  rounds (judgeapp/peer): {rounds}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--trec8", action="store_true", help="also the TREC-8-sized import")
    parser.add_argument("--only-trec8", action="store_true")
    args = parser.parse_args()
    print(load())
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp_name:
        tmp = Path(tmp_name)
        if not args.only_trec8:
            paths = sorted(RUNS.glob("input.*.gz"))
            if not paths:
                sys.exit(f"no runs under {RUNS}")
            res = race(paths, args.rounds, tmp)
            with Store.open(res["db"][0]) as store:
                loads = []
                for _ in range(5):
                    start = time.perf_counter()
                    lists = store.runs.ranked_lists()
                    loads.append(time.perf_counter() - start)
            report(
                f"the 17 Robust 2003 runs (gzipped), median of {args.rounds} alternated rounds "
                "(target: >= 2x faster)",
                lists.n_entries,
                res,
            )
            print(
                f"load every ranked list back: {statistics.median(loads):.3f} s, "
                f"{lists.n_entries:,} entries, median of 5 (target < 0.300 s)"
            )
        if args.trec8 or args.only_trec8:
            start = time.perf_counter()
            folder = tmp / "trec8"
            folder.mkdir()
            paths = write_trec8(folder)
            print(f"\nwrote 115 runs x 50 x 1000 in {time.perf_counter() - start:.0f} s")
            res = race(paths, args.rounds, tmp)
            report(
                f"TREC-8-sized: 115 runs x 50 topics x 1000 (plain files), median of {args.rounds}"
                " (target: < 10 s, peak < 1 GB)",
                115 * 50 * 1000,
                res,
            )
    print(load())


if __name__ == "__main__":
    main()
