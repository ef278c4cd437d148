"""`fuse RUN... --method M --out FUSED`: many runs into one TREC run (judgeapp.fusion).

Every method and normalisation of ranx, under ranx's names (judgeapp's older names combsum,
combmnz, combanz, combmax, combmin, borda still work). Scores are normalised first (--norm;
default minmax for score methods, none where only places count). With --optimize-on QRELS
--topics SPEC, a method's parameters (weights, k, gamma, sigma, phi, segments, window) are
chosen, and the supervised methods (probfuse, segfuse, slidefuse, posfuse, mapfuse,
bayesfuse) trained, on the training topics as ranx does it; the choice and its training
score (the measure on the fused training topics exactly as written, so `evaluate` on the
written run with those qrels prints the same number) go to stderr, the fused run (every
topic) to --out.
"""

from __future__ import annotations

import argparse
import sys

from judgeapp.commands import CommandError

ORDER = 62
DEPTH = 1000


def register(sub: argparse._SubParsersAction) -> None:
    from judgeapp.formats.ties import TIES
    from judgeapp.fusion import ALIASES, METHODS, NORM_ALIASES, NORMS

    p = sub.add_parser(
        "fuse",
        help="fuse runs (RRF, CombSUM, CombMNZ, Borda, Condorcet, ProbFuse, ... all of ranx's "
        "methods) into one TREC run",
        description="Fuse RUN files (TREC, ranx JSON or Parquet) into one TREC run, which "
        f"keeps the best {DEPTH:,} documents of each topic unless --depth says otherwise "
        "(as TREC runs do; --depth 0 keeps every document the runs retrieve).",
    )
    p.add_argument("runs", nargs="+", metavar="RUN", help="run files to fuse")
    p.add_argument(
        "--method",
        choices=(*METHODS, *ALIASES),
        default="rrf",
        metavar="METHOD",
        help=f"fusion method, ranx's names (default rrf): {', '.join(METHODS)}; "
        f"also {', '.join(ALIASES)}",
    )
    p.add_argument(
        "--norm",
        choices=(*NORMS, *NORM_ALIASES),
        metavar="NORM",
        help=f"score normalisation per run and topic: {', '.join(NORMS)} (default minmax for "
        "score methods, none for rank methods)",
    )
    p.add_argument("--weights", help="weighted methods: one weight per run, comma-separated")
    p.add_argument("--k", type=float, default=60.0, help="rrf's k (default 60)")
    p.add_argument("--gamma", type=float, help="gmnz's exponent of the number of runs")
    p.add_argument("--sigma", type=float, default=0.01, help="logn_isr's sigma (default 0.01)")
    p.add_argument("--phi", type=float, help="rbc's persistence, in [0, 1)")
    p.add_argument("--window", type=int, help="slidefuse's window (+-w places)")
    p.add_argument(
        "--depth",
        type=int,
        default=DEPTH,
        help=f"documents kept per topic in the fused run (default {DEPTH:,}, as TREC runs; "
        "0: every document the runs retrieve)",
    )
    p.add_argument(
        "--ties",
        choices=TIES,
        default="trec_eval",
        help="order of equal scores, in the input runs and the fused one: trec_eval (docno "
        "descending, default), docno (ascending), file (as given), ranx (as ranx sorts)",
    )
    p.add_argument("--tag", default="fused", help="run tag written in the file (default fused)")
    p.add_argument("--out", required=True, metavar="FUSED", help="the fused run file")
    p.add_argument(
        "--optimize-on",
        metavar="QRELS",
        help="train the method on these judgments: choose its parameters, or learn the "
        "supervised methods' probabilities",
    )
    p.add_argument("--measure", default="AP", help="measure to maximise (default AP)")
    p.add_argument("--topics", help="training topics: qids and ranges (301-350,401) or @FILE")
    p.add_argument(
        "--search",
        choices=("grid", "coordinate"),
        default="grid",
        help="weights: ranx's grid (default) or coordinate search",
    )
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


def _fusion(args: argparse.Namespace, n_runs: int) -> dict:
    from judgeapp.fusion import WEIGHTED, default_norm, method_name

    method = method_name(args.method)
    weights = None
    if args.weights:
        try:
            weights = tuple(float(w) for w in args.weights.split(","))
        except ValueError as exc:
            raise CommandError(f"--weights must be numbers: {args.weights!r}") from exc
        if method not in WEIGHTED:
            raise CommandError(f"--weights go with --method {', '.join(WEIGHTED)}")
        if len(weights) != n_runs:
            raise CommandError(f"--weights needs {n_runs} numbers, one per run")
    return dict(
        method=method,
        norm=args.norm or default_norm(method),
        weights=weights,
        k=args.k,
        gamma=args.gamma,
        sigma=args.sigma,
        phi=args.phi,
        window=args.window,
        ties=args.ties,
    )


def run(args: argparse.Namespace) -> int:
    from judgeapp.formats.interop import read_run_any
    from judgeapp.fusion import Fusion, fuse, write_run

    if not 0 < args.step <= 1:
        raise CommandError("--step must be in (0, 1]")
    if args.depth < 0:
        raise CommandError("--depth must be 0 (all) or more")
    if args.topics and not args.optimize_on:
        raise CommandError("--topics goes with --optimize-on")
    runs = [read_run_any(path) for path in args.runs]
    for path, run in zip(args.runs, runs, strict=True):
        _finite_scores(path, run)
    try:
        spec = _fusion(args, len(runs))
        fusion = _trained(args, runs, spec) if args.optimize_on else Fusion(**spec)
        fused = fuse(runs, fusion, tag=args.tag, depth=args.depth)
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    n = write_run(fused, args.out)
    kept = (
        f"at most {args.depth:,} documents a topic (--depth; 0 keeps all)"
        if args.depth
        else "every document of each topic (--depth 0)"
    )
    sys.stderr.write(
        f"fused {len(runs)} runs ({fusion.method}, norm {fusion.norm}): {n} lines in "
        f"{args.out}, {kept}\n"
    )
    if args.ties != "trec_eval":
        sys.stderr.write(
            f"equal fused scores are in {args.ties} order: evaluate with --ties file to keep it\n"
        )
    return 0


def _trained(args: argparse.Namespace, runs: list, spec: dict):
    import judgeapp
    from judgeapp.formats import read_qrels
    from judgeapp.formats.ties import reorder
    from judgeapp.fusion import parse_topics
    from judgeapp.fusion_train import bare, train

    qrels: dict[str, dict[str, int]] = {}
    for q, d, g in read_qrels(args.optimize_on):
        qrels.setdefault(q, {})[d] = g
    topics_spec = args.topics or ",".join(qrels)
    train_qids = parse_topics(topics_spec, {q for r in runs for q in r.topics} & set(qrels))
    train_qrels = {q: qrels[q] for q in train_qids}
    try:
        ev = judgeapp.evaluator([args.measure], train_qrels, version=args.version)
        ap = judgeapp.evaluator(["AP"], train_qrels, version=args.version)
    except ValueError as exc:
        raise CommandError(f"--measure: {exc}") from exc
    measure = ev.measures[0]

    def as_written(fused):
        # the order the fused run has when written (equal scores in the chosen order are
        # kept only by an evaluation that keeps them: --ties file)
        return fused if args.ties == "trec_eval" else reorder(fused, "file", rescore=True)

    def score(fused) -> float:
        return float(ev.calc_aggregate(as_written(fused))[measure])

    def mean_ap(one) -> float:
        return float(ap.calc_aggregate(one)[ap.measures[0]])

    base = bare(spec)
    choice = train(
        runs,
        base,
        train_qrels,
        train_qids,
        score,
        mean_ap,
        depth=args.depth,
        search=args.search,
        step=args.step,
    )
    sys.stderr.write(
        f"optimised on {len(train_qids)} topics ({choice.tried} tried): "
        f"{choice.fusion.describe()}, {measure} {choice.score:.4f}\n"
    )
    return choice.fusion


def _finite_scores(path: str, run) -> None:
    """Fusion adds, scales and compares scores: an infinite or NaN one (which a run file may
    hold, and trec_eval ranks by) would make every sum it enters infinite or undefined.
    Refused, naming the file and line."""
    import numpy as np

    for qid, topic in run.topics.items():
        bad = ~np.isfinite(topic.scores)
        if bad.any():
            i = int(np.argmax(bad))
            where = f"{path}:{int(topic.lines[i])}" if len(topic.lines) > i else path
            raise CommandError(
                f"{where}: topic {qid}: score {float(topic.scores[i])} is not a finite number "
                "(fusion adds and scales them: scores must be finite)"
            )
