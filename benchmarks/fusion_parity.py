"""Every ranx fusion method against ranx.fuse on whole Robust 2003 runs (all 100 topics):
how many topics have the same top 20 documents with the same fused scores (1e-12).

- without ties: humR03dc + uic0301 (the two runs with no tied scores), judgeapp's default
  tie order, and again with ``ties="ranx"`` (fused scores can tie even when the inputs do not:
  ranks of rrf, borda points, ...);
- with ties: pircRBa1 + aplrob03a + SABIR03BASE (thousands of tied scores), ``ties="ranx"``;
- supervised: trained by ranx's ``*_train`` on topics 601-650, fused on all topics with those
  parameters by both.

    python benchmarks/fusion_parity.py [--out benchmarks/results/fusion_parity.md]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judgeapp.formats import read_qrels  # noqa: E402
from judgeapp.formats.interop import read_run_any  # noqa: E402
from judgeapp.fusion import RANK_METHODS, SCORE_METHODS, Fusion, fuse  # noqa: E402

ROBUST = ROOT.parent / "shared" / "data" / "robust03"
TOP = 20
PARAMS = {
    "gmnz": {"gamma": 0.5},
    "logn_isr": {"sigma": 0.3},
    "rbc": {"phi": 0.8},
}
WEIGHTED = ("wsum", "mixed", "wmnz", "w_bordafuse", "w_condorcet")


def agree(ours, theirs) -> tuple[int, int, int]:
    """(topics whose top 20 documents and scores equal, topics whose scores of every
    document equal, topics)."""
    top = every = 0
    for q in theirs.keys():
        want = list(theirs[q].items())
        t = ours.topics[q]
        got = dict(zip(t.docnos, t.scores.tolist(), strict=True))
        same_scores = got.keys() == dict(want).keys() and np.allclose(
            [got[d] for d, _ in want], [s for _, s in want], rtol=1e-12, atol=1e-12
        )
        every += same_scores
        head = want[:TOP]
        top += t.docnos[:TOP] == [d for d, _ in head] and np.allclose(
            t.scores[:TOP], [s for _, s in head], rtol=1e-12, atol=1e-12
        )
    return top, every, len(theirs.keys())


def main() -> None:
    import ranx

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "fusion_parity.md"))
    args = ap.parse_args()
    t0 = time.perf_counter()

    def load(names):
        paths = [ROBUST / "runs" / f"input.{n}.gz" for n in names]
        return [read_run_any(p) for p in paths], [ranx.Run.from_file(str(p)) for p in paths]

    lines = [
        "Fusion against ranx.fuse on whole Robust 2003 runs (100 topics): topics whose top "
        f"{TOP} (documents and fused scores, 1e-12) equal ranx's / topics whose fused scores of "
        "every document equal ranx's (`python3 benchmarks/fusion_parity.py`)",
        "",
        "| method | no ties, default order | no ties, `ties=ranx` | with ties, `ties=ranx` |",
        "|---|---:|---:|---:|",
    ]
    plain = load(["humR03dc", "uic0301"])
    tied = load(["pircRBa1", "aplrob03a", "SABIR03BASE"])
    for method in (*SCORE_METHODS, *RANK_METHODS):
        cells = []
        for (runs, rruns), ties in ((plain, "trec_eval"), (plain, "ranx"), (tied, "ranx")):
            params = dict(PARAMS.get(method, {}))
            if method in WEIGHTED:
                params["weights"] = tuple([1 / len(runs)] * len(runs))
            rp = {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}
            theirs = ranx.fuse(rruns, norm="min-max", method=method, params=rp)
            ours = fuse(runs, Fusion(method, "minmax", ties=ties, **params))  # type: ignore[arg-type]
            top, every, n = agree(ours, theirs)
            cells.append(f"{top} / {every} of {n}")
        lines.append(f"| `{method}` | " + " | ".join(cells) + " |")
        print(lines[-1], f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)

    from ranx import fusion as rf

    keep = {str(q) for q in range(601, 651)}
    qrels: dict[str, dict[str, int]] = {}
    for q, d, g in read_qrels(ROBUST / "robust03_qrels.txt"):
        if q in keep:
            qrels.setdefault(q, {})[d] = g
    runs, _ = plain
    train_runs = [
        ranx.Run(
            {
                q: dict(zip(t.docnos, t.scores.tolist(), strict=True))
                for q, t in r.topics.items()
                if q in keep
            }
        )
        for r in runs
    ]
    rq = ranx.Qrels(qrels)
    lines += [
        "",
        "Supervised, trained by ranx on topics 601-650 of humR03dc + uic0301, fused on all 100 "
        "topics with the same parameters (`ties=ranx`)",
        "",
        "| method | top 20 / every score equal |",
        "|---|---:|",
    ]
    _, rruns = plain
    for method, key, extra in (
        ("probfuse", "probs", {}),
        ("segfuse", "probs", {}),
        ("slidefuse", "probs", {"w": 3}),
        ("posfuse", "probs", {}),
        ("bayesfuse", "log_odds", {}),
        ("mapfuse", "map_scores", {}),
    ):
        trainer = getattr(rf, f"{method}_train")
        learnt = trainer(rq, train_runs, 10) if method == "probfuse" else trainer(rq, train_runs)
        theirs = ranx.fuse(rruns, norm="min-max", method=method, params={key: learnt, **extra})
        trained = tuple(
            (float(x),) if method == "mapfuse" else tuple(np.asarray(x, dtype=float).tolist())
            for x in learnt
        )
        f = Fusion(method, "minmax", trained=trained, window=extra.get("w"), ties="ranx")
        top, every, n = agree(fuse(runs, f), theirs)
        lines.append(f"| `{method}` | {top} / {every} of {n} |")
        print(lines[-1], f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    text = "\n".join(lines) + "\n"
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
