"""The `evaluate` command as a user runs it, from files, against a short Python script that
parses the same files into dicts and calls pytrec_eval (the peer).

    python benchmarks/bench_evaluate.py [--rounds 5] [--only robust03|generated]
                                        [--trec-eval PATH]

Each side is a fresh process (`python main.py evaluate ...` / `python -c PEER ...`), so
each time includes starting Python, importing, reading and parsing the files, evaluating
and writing the output (to a file; both outputs are checked to give the same MAP for
every run). The sides alternate (the first one changes every round); the figure is the
median of --rounds rounds, and the ratio is the peer's median over judgeapp's (above 1:
judgeapp is faster). Before the rounds each side runs once untimed, and the sides run
without PYTHONDONTWRITEBYTECODE: Python's bytecode is cached, as it is after `pip install`
(recompiling judgeapp's modules at every start costs ~0.1 s that no installed copy pays).

Memory, two ways. The timing table gives each side's largest single-process peak (GNU
`time`'s, see benchmarks/peak_rss.py). judgeapp's `evaluate` reads many runs in forked
processes (judgeapp.forked), and one process's peak says nothing of a tree: the memory
rows therefore sample every process of each side every 2 ms (peak_rss.TreeMemory) and
report the peak of the command's resident set plus what is private to each process it
forked (pages a child shares with its parent count once), and the resident sets summed
(shared pages counted in each process: an upper bound). For the peer, a single process,
the first is its resident set. Memory rounds are run apart from the timed ones.

Targets (issue 14): the generated case with default measures at least 5x faster than the
peer and faster than trec_eval (C) run once per run file, peak memory at most 1.5x the
peer's and within 20% between 10 and 100 runs; Robust 2003 `-q -m all_trec` at least 3x
faster than the peer.

Cases:
- the 17 Robust 2003 runs (gzipped) against their qrels (../shared/data/robust03, skipped
  when absent), with trec_eval's default measures, and with `-q -m all_trec` (per-topic
  values too; the peer: pytrec_eval's `supported_measures`, per-topic values too);
- a generated case: 100 runs x 50 topics x 1000 documents with graded qrels (bench_measures'
  generator), written as plain TREC files into a temporary folder, the same two ways.

trec_eval (C) is a third side of the generated default-measures case when a binary is
found (--trec-eval PATH, else $TREC_EVAL, else `trec_eval` on the PATH): a shell loop
calling it once per run file, as scripts do; without one that row is skipped, and says so.
Peak memory at 10 runs is judgeapp's `evaluate` on the first 10 generated runs. The
generated default-measures case also times `evaluate --jobs 1` (every run read in the one
process: less memory, one core), as another side of the same rounds, and its memory.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ROBUST = ROOT.parent / "shared" / "data" / "robust03"

from bench_measures import PYTREC_OFFICIAL, generated_case  # noqa: E402  (beside this file)
from peak_rss import PeakRss, TreeMemory  # noqa: E402

# The peer: what a researcher writes without judgeapp. Arguments: "-q" or "-", the measures
# ("all" for pytrec_eval's supported set, else comma-separated names), qrels, runs.
PEER = r"""
import gzip, sys, pytrec_eval
def read(path, column, cast):
    table = {}
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        for line in f:
            p = line.split()
            table.setdefault(p[0], {})[p[2]] = cast(p[column])
    return table
per_topic, names, qrels, *runs = sys.argv[1:]
measures = pytrec_eval.supported_measures if names == "all" else set(names.split(","))
evaluator = pytrec_eval.RelevanceEvaluator(read(qrels, 3, int), measures)
for path in runs:
    result = evaluator.evaluate(read(path, 4, float))
    for m in sorted(next(iter(result.values()))):
        if per_topic == "-q":
            for q, values in sorted(result.items()):
                print(f"{m:<22}\t{q}\t{values[m]:.4f}")
        mean = pytrec_eval.compute_aggregated_measure(m, [v[m] for v in result.values()])
        print(f"{m:<22}\tall\t{mean:.4f}")
"""

MAP_ALL = re.compile(rb"^map\s+all\s+(\S+)$", re.MULTILINE)


# the sides' environment: bytecode cached, as in an installed copy
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_timed(cmd: list[str], out_path: Path) -> tuple[float, int]:
    """Run `cmd` with stdout to `out_path`: (wall seconds, peak RSS in MiB of that process)."""
    peak = PeakRss()  # the command's own peak, not this process's (see peak_rss)
    with open(out_path, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(
            peak.wrap(cmd), stdout=out, stderr=subprocess.PIPE, cwd=ROOT, env=ENV
        )
        _, status, usage = os.wait4(proc.pid, 0)
        took = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode:
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd[:4])} ...\n{err}")
    return took, peak.mib(usage)


def map_values(path: Path) -> list[float]:
    return [float(v) for v in MAP_ALL.findall(path.read_bytes())]


def race(
    label: str,
    ours: list[str],
    peer: list[str],
    rounds: int,
    tmp: Path,
    c_side: list[str] | None = None,
    one_process: list[str] | None = None,
) -> dict:
    sides = {"judgeapp": ours, "peer": peer}
    if c_side is not None:
        sides["trec_eval"] = c_side
    if one_process is not None:
        sides["jobs1"] = one_process
    times: dict[str, list[float]] = {s: [] for s in sides}
    rss: dict[str, list[int]] = {s: [] for s in sides}
    names = list(sides)
    for side in names:  # untimed: bytecode written, files in the page cache
        run_timed(sides[side], tmp / f"{side}.out")
    for k in range(rounds):
        for side in names[k % len(names) :] + names[: k % len(names)]:  # first side rotates
            took, peak = run_timed(sides[side], tmp / f"{side}.out")
            times[side].append(took)
            rss[side].append(peak)
    ours_map, peer_map = map_values(tmp / "judgeapp.out"), map_values(tmp / "peer.out")
    if len(ours_map) != len(peer_map) or any(
        abs(a - b) > 1.5e-4 for a, b in zip(ours_map, peer_map, strict=True)
    ):
        sys.exit(f"{label}: the two sides disagree on MAP: {ours_map} vs {peer_map}")
    if c_side is not None and map_values(tmp / "trec_eval.out") != ours_map:
        sys.exit(f"{label}: trec_eval and judgeapp disagree on MAP")
    if one_process is not None and map_values(tmp / "jobs1.out") != ours_map:
        sys.exit(f"{label}: judgeapp --jobs 1 and judgeapp disagree on MAP")
    return {
        "label": label,
        "runs": len(ours_map),
        "ours": times["judgeapp"],
        "peer": times["peer"],
        "c": times.get("trec_eval"),
        "jobs1": times.get("jobs1"),
        "jobs1_rss": max(rss["jobs1"]) if one_process is not None else None,
        "ours_rss": max(rss["judgeapp"]),
        "peer_rss": max(rss["peer"]),
    }


def find_trec_eval(given: str | None) -> str | None:
    path = given or os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    return path if path and os.access(path, os.X_OK) else None


def trec_eval_loop(binary: str, qrels: Path, runs: list[Path]) -> list[str]:
    """trec_eval called once per run file, one after another, from a shell."""
    script = 'q="$1"; shift; for r in "$@"; do "$0" "$q" "$r" || exit 1; done'
    return ["sh", "-c", script, binary, str(qrels), *map(str, runs)]


def cases(qrels: Path, runs: list[Path], name: str) -> list[tuple[str, list[str], list[str]]]:
    py = sys.executable
    files = [str(qrels), *map(str, runs)]
    return [
        (
            f"{name}, default measures",
            [py, "main.py", "evaluate", *files],
            [py, "-c", PEER, "-", ",".join(sorted(PYTREC_OFFICIAL)), *files],
        ),
        (
            f"{name}, -q -m all_trec",
            [py, "main.py", "evaluate", "-q", "-m", "all_trec", *files],
            [py, "-c", PEER, "-q", "all", *files],
        ),
    ]


def write_generated(folder: Path) -> tuple[Path, list[Path], str]:
    qids, judged, runs, docno = generated_case()
    qrels = folder / "qrels.txt"
    with open(qrels, "w") as f:
        for q in qids:
            for d, g in zip(*judged[q], strict=True):
                f.write(f"{q} 0 {docno[d]} {g}\n")
    paths = []
    for r, run in enumerate(runs):
        path = folder / f"run{r:03d}.txt"
        with open(path, "w") as f:
            for q, ids in run.items():
                depth = len(ids)
                f.writelines(
                    f"{q} Q0 {docno[d]} {i + 1} {depth - i} run{r:03d}\n"
                    for i, d in enumerate(ids.tolist())
                )
        paths.append(path)
    entries = sum(a.size for run in runs for a in run.values())
    what = f"{len(runs)} runs x {len(qids)} topics x {len(runs[0][qids[0]])} docs"
    return qrels, paths, f"{what} = {entries:,} entries"


def load() -> str:
    return f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="median of N rounds (default 5)")
    parser.add_argument("--only", choices=("robust03", "generated"))
    parser.add_argument("--trec-eval", dest="trec_eval", help="a trec_eval binary (C)")
    args = parser.parse_args()
    print(load())
    binary = find_trec_eval(args.trec_eval)
    if binary:
        version = subprocess.run([binary, "-v"], capture_output=True, text=True)
        print(f"trec_eval: {binary} ({(version.stderr or version.stdout).strip()})")
    else:
        print("trec_eval (C): no binary found (--trec-eval, $TREC_EVAL, PATH): row skipped")
    results = []
    memory: list[tuple[int, dict[str, tuple[int, int]]]] = []
    with tempfile.TemporaryDirectory(prefix="bench-evaluate-") as tmp_name:
        tmp = Path(tmp_name)
        if args.only != "generated":
            run_paths = sorted((ROBUST / "runs").glob("input.*.gz"))
            if run_paths:
                print(f"Robust 2003: {len(run_paths)} gzipped runs")
                for label, ours, peer in cases(
                    ROBUST / "robust03_qrels.txt", run_paths, "Robust 2003"
                ):
                    results.append(race(label, ours, peer, args.rounds, tmp))
            else:
                print(f"Robust 2003 runs not found under {ROBUST}: skipped")
        if args.only != "robust03":
            start = time.perf_counter()
            qrels, run_paths, what = write_generated(tmp)
            print(f"generated: {what}, written in {time.perf_counter() - start:.1f} s")
            for k, (label, ours, peer) in enumerate(cases(qrels, run_paths, "generated")):
                c_side = trec_eval_loop(binary, qrels, run_paths) if binary and k == 0 else None
                # default measures: also judgeapp reading every run in its own process
                one = [*ours[:3], "--jobs", "1", *ours[3:]] if k == 0 else None
                results.append(race(label, ours, peer, args.rounds, tmp, c_side, one))
            # memory of the process trees as the number of runs grows: 10 runs, then all
            py = sys.executable
            official = ",".join(sorted(PYTREC_OFFICIAL))
            for n in (10, len(run_paths)):
                files = [str(qrels), *map(str, run_paths[:n])]
                sides = {
                    "judgeapp": [py, "main.py", "evaluate", *files],
                    "jobs1": [py, "main.py", "evaluate", "--jobs", "1", *files],
                    "peer": [py, "-c", PEER, "-", official, *files],
                }
                peaks = {side: [] for side in sides}
                for _ in range(args.rounds):
                    for side, cmd in sides.items():
                        peaks[side].append(
                            TreeMemory().run(cmd, stdout=subprocess.DEVNULL, cwd=ROOT, env=ENV)
                        )
                memory.append((n, {side: max(p) for side, p in peaks.items()}))

    print(
        f"\nthe whole command from files, each side a fresh process; median of {args.rounds} "
        "alternated rounds"
    )
    print("  judgeapp: python main.py evaluate [-q -m all_trec] QRELS RUN...")
    print("  peer:     python -c PEER (parse into dicts, pytrec_eval, print), same files")
    print(
        f"{'case':<34} {'judgeapp s':>10} {'peer s':>8} {'peer/judgeapp':>13} "
        f"{'judgeapp MiB*':>13} {'peer MiB':>9}"
    )
    for r in results:
        ours, peer = statistics.median(r["ours"]), statistics.median(r["peer"])
        print(
            f"{r['label']:<34} {ours:>10.2f} {peer:>8.2f} {peer / ours:>12.2f}x "
            f"{r['ours_rss']:>12} {r['peer_rss']:>9}"
        )
        spread = ", ".join(f"{a:.2f}/{b:.2f}" for a, b in zip(r["ours"], r["peer"], strict=True))
        print(f"{'':<34} rounds (judgeapp/peer): {spread}")
        if r["jobs1"]:
            one = statistics.median(r["jobs1"])
            print(
                f"{'':<34} judgeapp --jobs 1 (no forked reader): {one:.2f} s, {peer / one:.2f}x "
                f"the peer's speed, {r['jobs1_rss']} MiB "
                f"(rounds: {', '.join(f'{t:.2f}' for t in r['jobs1'])})"
            )
        if r["c"]:
            c = statistics.median(r["c"])
            print(
                f"{'':<34} trec_eval (C) once per run: {c:.2f} s, {c / ours:.2f}x judgeapp's "
                f"time (rounds: {', '.join(f'{t:.2f}' for t in r['c'])})"
            )
    print("(peer/judgeapp: the peer's time over judgeapp's; above 1 judgeapp is faster)")
    print("(*MiB: the largest single process's peak RSS; for the whole tree see below)")
    if memory:
        print(
            "\nmemory, generated, default measures: peak over samples every 2 ms of the whole "
            f"process tree (max of {args.rounds} runs each; MiB):\n"
            "  held = the command's resident set + each forked child's private pages; "
            "RSS sum = every process's resident set added (shared pages counted in each)"
        )
    for n, peak in memory:
        ours, one, peer = peak["judgeapp"], peak["jobs1"], peak["peer"]
        print(
            f"  {n:3} runs: judgeapp held {ours[0]}, RSS sum {ours[1]}; with --jobs 1 "
            f"{one[0]}; peer {peer[0]}; judgeapp/peer {ours[0] / peer[0]:.2f}x, with "
            f"--jobs 1 {one[0] / peer[0]:.2f}x (target <= 1.50x)"
        )
    if len(memory) == 2:
        for side in ("judgeapp", "jobs1"):
            ratio = memory[1][1][side][0] / memory[0][1][side][0]
            name = "judgeapp" if side == "judgeapp" else "judgeapp --jobs 1"
            print(f"  {name} 100 runs / 10 runs: {ratio:.2f}x (target <= 1.20x)")
    print(load())
    return 0


if __name__ == "__main__":
    sys.exit(main())
