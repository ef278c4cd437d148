"""Is ranx's bordafuse/condorcet top 20 a fixed target?  ranx.fuse run in three processes
with different string-hash seeds (PYTHONHASHSEED 1, 2, 3) on the Robust 2003 runs of
benchmarks/fusion_parity.py: topics whose top 20 (documents and fused scores) is the same
in all three, and how often judgeapp's (``ties="ranx"``) equals each.

    python benchmarks/ranx_hash_order.py [--out benchmarks/results/ranx_hash_order.md]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ROBUST = ROOT.parent / "shared" / "data" / "robust03" / "runs"
SETS = {"no ties": ["humR03dc", "uic0301"], "with ties": ["pircRBa1", "aplrob03a", "SABIR03BASE"]}
METHODS = ("bordafuse", "condorcet")
TOP = 20
SEEDS = ("1", "2", "3")

RANX_SIDE = """
import json, sys
import ranx
out = {}
for label, names in json.loads(sys.argv[2]).items():
    runs = [ranx.Run.from_file(sys.argv[3] + "/input." + n + ".gz") for n in names]
    for m in sys.argv[4].split(","):
        f = ranx.fuse(runs, norm="min-max", method=m)
        out[label + "/" + m] = {q: list(f[q].items())[:int(sys.argv[5])] for q in f.keys()}
json.dump(out, open(sys.argv[1], "w"))
"""


def same(a, b) -> bool:
    return [d for d, _ in a] == [d for d, _ in b] and all(
        math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12)
        for (_, x), (_, y) in zip(a, b, strict=True)
    )


def main() -> None:
    from judgeapp.formats.interop import read_run_any
    from judgeapp.fusion import Fusion, fuse

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "ranx_hash_order.md"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        theirs = []
        for seed in SEEDS:
            path = Path(tmp) / f"ranx{seed}.json"
            subprocess.run(
                [
                    sys.executable,
                    "-c",
                    RANX_SIDE,
                    str(path),
                    json.dumps(SETS),
                    str(ROBUST),
                    ",".join(METHODS),
                    str(TOP),
                ],
                check=True,
                env={**os.environ, "PYTHONHASHSEED": seed},
            )
            theirs.append(json.loads(path.read_text()))
    lines = [
        f"ranx.fuse in {len(SEEDS)} processes (PYTHONHASHSEED {', '.join(SEEDS)}) against itself and "
        f'against judgeapp (`ties="ranx"`): topics whose top {TOP} (documents and fused scores, '
        "1e-12) agree (`python3 benchmarks/ranx_hash_order.py`)",
        "",
        "| runs | method | ranx equal to itself in all seeds | judgeapp equal to ranx, per seed |",
        "|---|---|---:|---:|",
    ]
    for label, names in SETS.items():
        runs = [read_run_any(ROBUST / f"input.{n}.gz") for n in names]
        for m in METHODS:
            key = f"{label}/{m}"
            ours = fuse(runs, Fusion(m, "minmax", ties="ranx"))
            mine = {
                q: list(zip(t.docnos[:TOP], t.scores[:TOP].tolist(), strict=True))
                for q, t in ours.topics.items()
            }
            qs = list(theirs[0][key])
            stable = sum(all(same(theirs[0][key][q], t[key][q]) for t in theirs[1:]) for q in qs)
            per_seed = [sum(same(mine[q], t[key][q]) for q in qs) for t in theirs]
            lines.append(
                f"| {label} | `{m}` | {stable} of {len(qs)} | "
                + ", ".join(str(x) for x in per_seed)
                + " |"
            )
            print(lines[-1], file=sys.stderr)
    text = "\n".join(lines) + "\n"
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
