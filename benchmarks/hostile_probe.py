"""Hostile and broken input, counted: the figures of issue 13's closing note.

Runs every case of the corpus (tests/data/hostile/cases.toml) at the issue's sizes (50 MB
and 256 MiB lines, a 2 GiB gzip bomb, 1 GiB bzip2 and 512 MiB xz bombs, ...), then
--mutations seeded random hostile inputs (tests/hostile/mutations.py: mutated qrels and
runs through `evaluate`, mutated files of every kind through `import`, mutated standard
input through `judge`, damaged project files through six commands). Each runs in a process
of its own (tests/hostile/runner.py) with at most --memory bytes of address space and
--seconds of wall time, and is judged as the tests judge it:

- clear error: exit 1 or 2 and stderr ending in one line `judgeapp: error: ...`;
- success: exit 0;
- traceback, hang (killed after --seconds), abort (a signal), unclear (another exit);
- altered data: the project not byte-identical after a failure, an output left half
  written, or `judge`'s printed `recorded` lines not what the store holds;
- for corpus cases also: the outcome or message the case expects.

    python benchmarks/hostile_probe.py [--mutations 300] [--seed 13]

Prints the table and the cases with the largest peak RSS and the longest times. Large
inputs are made once and kept in /tmp/judgeapp-hostile-cache (JUDGEAPP_HOSTILE_CACHE).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.hostile.cases import (  # noqa: E402
    BASE,
    build_template,
    clean,
    last_grades,
    load_cases,
    recorded_lines,
    run_case,
    snapshot,
    stored_judgments,
)
from tests.hostile.mutations import damage, mutate, random_mutation, source  # noqa: E402
from tests.hostile.runner import ForkServer, Outcome  # noqa: E402

KINDS = ("ok", "error", "traceback", "hang", "abort", "unclear", "altered")


@dataclass
class Tried:
    name: str
    kind: str  # one of KINDS
    expected: bool  # the corpus case's own expectation met (always True for mutations)
    outcome: Outcome
    problems: list[str]


def corpus(server: ForkServer, template: Path, root: Path, seconds: float, memory: int):
    for case in load_cases():
        folder = root / case.id
        start = time.monotonic()
        verdict = run_case(server, case, template, folder, seconds=seconds, memory=memory)
        clean(folder)
        assert verdict.outcome is not None, verdict.report()
        expected = not [p for p in verdict.problems if not p.startswith("altered")]
        expected = expected and verdict.kind in ("ok", "error")
        print(
            f"  {verdict.kind:9} {time.monotonic() - start:6.1f} s "
            f"{verdict.outcome.peak_rss >> 20:6} MiB  {case.id}",
            file=sys.stderr,
        )
        yield Tried(case.id, verdict.kind, expected, verdict.outcome, verdict.problems)


def mutations(server: ForkServer, template: Path, root: Path, n: int, seed: int, **limits):
    rng = random.Random(seed)
    for i in range(n):
        work = root / f"m{i}"
        work.mkdir()
        db = work / "p.db"
        db.write_bytes(template.read_bytes())
        target = rng.choice(["evaluate", "import", "judge", "project"])
        kind, at, value = random_mutation(rng)
        stdin = None
        if target == "evaluate":
            which = rng.choice(["qrels", "run"])
            path = work / f"in.{which}"
            path.write_bytes(mutate(source(which, rng.randrange(2)).read_bytes(), kind, at, value))
            qrels = path if which == "qrels" else BASE / "qrels.txt"
            run = path if which == "run" else BASE / "run.txt"
            argv = ["evaluate", "-c", "-m", "all_trec", str(qrels), str(run)]
            name = f"evaluate {which} {kind}"
        elif target == "import":
            what = rng.choice(["run", "qrels", "topics", "docs", "judgments"])
            original = source(what, rng.randrange(4))
            path = work / original.name
            path.write_bytes(mutate(original.read_bytes(), kind, at, value))
            argv = ["import", what, str(db), str(path)]
            argv += ["--replace"] if what in ("run", "qrels") else []
            argv += ["--assessor", "probe"] if what == "judgments" else []
            name = f"import {what} {kind}"
        elif target == "judge":
            stdin = work / "stdin.txt"
            stdin.write_bytes(mutate(source("judge", 0).read_bytes(), kind, at, value))
            argv = ["judge", str(db), "--assessor", "probe"]
            name = f"judge {kind}"
        else:
            how = rng.choice(["truncate", "page", "flips", "header"])
            db.write_bytes(damage(db.read_bytes(), how, at, value))
            command = rng.choice(["info", "judge", "export", "evaluate", "pool", "import"])
            argv = {
                "info": ["info", str(db), "--topics"],
                "judge": ["judge", str(db), "--assessor", "probe"],
                "export": ["export", "qrels", str(db)],
                "evaluate": ["evaluate", "--db", str(db)],
                "pool": ["pool", str(db), "--depth", "3", "--name", "probe-pool"],
                "import": ["import", "topics", str(db), str(BASE / "topics.sgml")],
            }[command]
            stdin = BASE / "judge.txt" if command == "judge" else None
            name = f"{command} on a project damaged by {how}"
        before = snapshot(db)
        start = time.monotonic()
        outcome = server.run(argv, work, stdin=stdin, **limits)
        problems = []
        if outcome.kind in ("ok", "error"):
            printed = recorded_lines(outcome.stdout) if argv[0] == "judge" else []
            if outcome.kind == "error" and not printed and snapshot(db) != before:
                problems.append("altered: the project changed")
            if argv[0] == "judge" and last_grades(printed) != last_grades(
                stored_judgments(db, "probe")
            ):
                problems.append("altered: printed is not stored")
        kind_seen = "altered" if problems else outcome.kind
        print(
            f"  {kind_seen:9} {time.monotonic() - start:6.1f} s "
            f"{outcome.peak_rss >> 20:6} MiB  {name}",
            file=sys.stderr,
        )
        clean(work)
        yield Tried(name, kind_seen, True, outcome, problems)


def table(groups: dict[str, list[Tried]]) -> str:
    labels = {
        "tried": "cases tried",
        "error": "clear errors (one line, exit 1 or 2)",
        "ok": "successes (exit 0)",
        "traceback": "tracebacks",
        "hang": "hangs",
        "abort": "aborts (ended by a signal)",
        "unclear": "unclear exits",
        "altered": "altered data",
        "unexpected": "corpus cases not as expected",
    }
    names = [*groups, "total"]
    everything = [t for tried in groups.values() for t in tried]
    columns = {**groups, "total": everything}
    lines = [f"{'':40}" + "".join(f"{n:>12}" for n in names)]
    for key, label in labels.items():
        cells = []
        for n in names:
            tried = columns[n]
            if key == "tried":
                value = len(tried)
            elif key == "unexpected":
                value = sum(not t.expected for t in tried)
            else:
                value = sum(t.kind == key for t in tried)
            cells.append(f"{value:>12}")
        lines.append(f"{label:40}" + "".join(cells))
    worst = max(everything, key=lambda t: t.outcome.peak_rss)
    slowest = max(everything, key=lambda t: t.outcome.seconds)
    lines.append(
        f"{'peak RSS of the worst case':40}{worst.outcome.peak_rss / 2**20:>11.0f}M  ({worst.name})"
    )
    lines.append(f"{'longest case':40}{slowest.outcome.seconds:>11.1f}s  ({slowest.name})")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mutations", type=int, default=300)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--seconds", type=float, default=60.0, help="hang threshold")
    parser.add_argument("--memory", type=int, default=4 << 30, help="RLIMIT_AS per case")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="judgeapp-probe-"))
    root.chmod(0o755)
    started = time.monotonic()
    try:
        template = build_template(root / "template.db")
        with ForkServer() as server:
            baseline = server.run(["--version"], root)
            print("corpus (tests/data/hostile/cases.toml, at the issue's sizes):", file=sys.stderr)
            found = {"corpus": list(corpus(server, template, root, args.seconds, args.memory))}
            print(f"{args.mutations} seeded mutations (seed {args.seed}):", file=sys.stderr)
            found["mutations"] = list(
                mutations(
                    server,
                    template,
                    root,
                    args.mutations,
                    args.seed,
                    seconds=args.seconds,
                    memory=args.memory,
                )
            )
    finally:
        clean(root)
    everything = [t for tried in found.values() for t in tried]
    print(
        f"hostile probe: {len(found['corpus'])} corpus cases and {args.mutations} seeded "
        f"mutations (seed {args.seed}); limits per case: {args.memory >> 30} GiB of address "
        f"space, {args.seconds:.0f} s; {time.monotonic() - started:.0f} s in all"
    )
    print(table(found))
    print(
        f"baseline peak RSS (`judgeapp --version` in the same harness): "
        f"{baseline.peak_rss / 2**20:.0f}M"
    )
    print("largest peak RSS:")
    for t in sorted(everything, key=lambda t: -t.outcome.peak_rss)[:5]:
        print(
            f"  {t.outcome.peak_rss / 2**20:7.0f}M {t.outcome.seconds:6.1f}s  {t.kind:7} {t.name}"
        )
    print("longest:")
    for t in sorted(everything, key=lambda t: -t.outcome.seconds)[:5]:
        print(
            f"  {t.outcome.peak_rss / 2**20:7.0f}M {t.outcome.seconds:6.1f}s  {t.kind:7} {t.name}"
        )
    bad = [t for t in everything if t.kind not in ("ok", "error") or not t.expected]
    for t in bad:
        print(f"NOT CLEAN: {t.name}: {t.kind} {t.problems}\n  {t.outcome.describe()}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
