"""`fuse RUN... --method M --out FUSED`: many runs into one TREC run (judgeapp.fusion).

Methods rrf, combsum, combmnz, combmax, combmin, combanz, borda, isr, wsum; scores
normalised first (--norm; default minmax for the score-based methods, none for the
rank-based rrf, isr and borda). With --optimize-on QRELS --measure M --topics SPEC, wsum's
weights (or rrf's k) are chosen on the training topics by grid or coordinate search; the
choice and its training score go to stderr, the fused run (every topic) to --out.
"""

from __future__ import annotations

import argparse
import sys

from judgeapp.commands import CommandError

ORDER = 62


def register(sub: argparse._SubParsersAction) -> None:
    from judgeapp.fusion import METHODS, NORMS

    p = sub.add_parser(
        "fuse",
        help="fuse runs (RRF, CombSUM, CombMNZ, Borda, weighted sum, ...) into one TREC run",
        description="Fuse RUN files (TREC, ranx JSON or Parquet) into one TREC run.",
    )
    p.add_argument("runs", nargs="+", metavar="RUN", help="run files to fuse")
    p.add_argument("--method", choices=METHODS, default="rrf", help="fusion method (default rrf)")
    p.add_argument("--norm", choices=NORMS, help="score normalisation per run and topic")
    p.add_argument("--weights", help="wsum: one weight per run, comma-separated")
    p.add_argument("--k", type=float, default=60.0, help="rrf's k (default 60)")
    p.add_argument("--depth", type=int, default=1000, help="documents kept per topic (0: all)")
    p.add_argument("--tag", default="fused", help="run tag written in the file (default fused)")
    p.add_argument("--out", required=True, metavar="FUSED", help="the fused run file")
    p.add_argument("--optimize-on", metavar="QRELS", help="choose wsum weights or rrf's k on these")
    p.add_argument("--measure", default="AP", help="measure to maximise (default AP)")
    p.add_argument("--topics", help="training topics: qids and ranges (301-350,401) or @FILE")
    p.add_argument("--search", choices=("grid", "coordinate"), default="grid")
    p.add_argument("--step", type=float, default=0.1, help="weight grid step (default 0.1)")
    p.add_argument(
        "--trec-eval",
        dest="version",
        type=int,
        choices=(9, 10),
        default=10,
        help="measure semantics while optimising (default trec_eval 10.0)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from judgeapp.formats.interop import read_run_any
    from judgeapp.fusion import RANK_METHODS, Fusion, fuse, write_run

    norm = args.norm or ("none" if args.method in RANK_METHODS else "minmax")
    weights = None
    if args.weights:
        try:
            weights = tuple(float(w) for w in args.weights.split(","))
        except ValueError as exc:
            raise CommandError(f"--weights must be numbers: {args.weights!r}") from exc
        if args.method != "wsum":
            raise CommandError("--weights go with --method wsum")
        if len(weights) != len(args.runs):
            raise CommandError(f"--weights needs {len(args.runs)} numbers, one per run")
    if not 0 < args.step <= 1:
        raise CommandError("--step must be in (0, 1]")
    runs = [read_run_any(path) for path in args.runs]
    for path, run in zip(args.runs, runs, strict=True):
        _finite_scores(path, run)
    try:
        fusion = Fusion(args.method, norm, weights, args.k)
        if args.optimize_on:
            fusion = _optimized(args, runs, fusion)
        elif args.topics:
            raise CommandError("--topics goes with --optimize-on")
        fused = fuse(runs, fusion, tag=args.tag, depth=args.depth)
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    n = write_run(fused, args.out)
    sys.stderr.write(
        f"fused {len(runs)} runs ({fusion.method}, norm {fusion.norm}): {n} lines in {args.out}\n"
    )
    return 0


def _optimized(args: argparse.Namespace, runs: list, base):
    import judgeapp
    from judgeapp.formats import read_qrels
    from judgeapp.fusion import optimize, parse_topics

    qrels: dict[str, dict[str, int]] = {}
    for q, d, g in read_qrels(args.optimize_on):
        qrels.setdefault(q, {})[d] = g
    spec = args.topics or ",".join(qrels)
    train = parse_topics(spec, {q for r in runs for q in r.topics} & set(qrels))
    train_qrels = {q: qrels[q] for q in train}
    try:
        ev = judgeapp.evaluator([args.measure], train_qrels, version=args.version)
    except ValueError as exc:
        raise CommandError(f"--measure: {exc}") from exc
    measure = ev.measures[0]

    def score(fused) -> float:
        return float(ev.calc_aggregate(fused)[measure])

    choice = optimize(runs, base, score, search=args.search, step=args.step)
    what = (
        f"weights {','.join(f'{w:g}' for w in choice.fusion.weights or ())}"
        if choice.fusion.method == "wsum"
        else f"k {choice.fusion.k:g}"
    )
    sys.stderr.write(
        f"optimised on {len(train)} topics ({choice.tried} tried): {what}, {measure} {choice.score:.4f}\n"
    )
    return choice.fusion


def _finite_scores(path: str, run) -> None:
    """Fusion adds, scales and compares scores: an infinite or NaN one (which a run file may
    hold, and trec_eval ranks by) would make every sum it enters infinite or undefined.
    Refused, naming the file and line."""
    import numpy as np

    from judgeapp.formats import FormatError

    for qid, topic in run.topics.items():
        bad = ~np.isfinite(topic.scores)
        if bad.any():
            i = int(np.argmax(bad))
            line = int(topic.lines[i]) if len(topic.lines) > i else None
            raise FormatError(
                path,
                line,
                f"topic {qid}: score {float(topic.scores[i])} is not a finite number, which "
                "fusion cannot add or scale",
            )
