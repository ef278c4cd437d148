"""`simulate --qrels Q --runs RUN... --depth K --strategy S[,S...]`: replay judging orders with
qrels as the assessor, and run the pool-bias test."""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from judgeapp.commands import CommandError, plural, progress_bar
from judgeapp.commands.pool import ORDER_CHOICES, add_topics_argument, select_topics
from judgeapp.outputs import OutputError, replacing, writing

ORDER = 46


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "simulate",
        help="replay judging orders on a depth pool with qrels as the assessor",
        description="Pool RUN files to --depth, then judge every pooled document in the "
        "order of each --strategy, taking grades from the qrels (pooled documents the qrels "
        "lack count as non-relevant; their number is reported). Prints the judgments each "
        "strategy needed to find 50/80/90/100% of the pool's relevant documents, summed "
        "over topics, as a tab-separated table, and writes per-strategy curves (CSV, PNG) "
        "to --out. Also runs Zobel's pool-bias test (per run: MAP without the documents "
        "only it pooled, and Kendall's tau between the system rankings).",
    )
    p.add_argument(
        "--qrels",
        required=True,
        help="the assessor: TREC qrels, or judgments as `export judgments` writes them "
        "(JSON Lines or CSV; judgments of documents found by searching the collection are "
        "then left out, as the simulation replays judging from the pool alone, and where "
        "several assessors judged a document the newest judgment counts)",
    )
    p.add_argument("--runs", required=True, nargs="+", metavar="RUN", help="TREC run files")
    p.add_argument("--depth", required=True, type=int, help="pool depth")
    p.add_argument(
        "--strategy",
        required=True,
        help=f"judging orders, comma-separated: {','.join(ORDER_CHOICES)}",
    )
    add_topics_argument(p, "every judged topic a run retrieved")
    p.add_argument("--out", default="simulation", help="folder for CSV and PNG files")
    p.add_argument("--seed", type=int, default=0, help="seed of the blind order")
    p.add_argument(
        "--relevance-level",
        "-l",
        type=int,
        default=1,
        help="lowest grade counted relevant (default 1, as trec_eval)",
    )
    p.add_argument(
        "--suggestions",
        metavar="FILE",
        help="an automatic judge's judgments (as `export judgments` writes them, or qrels "
        "with a fifth column score) for the `suggested` order: highest score first",
    )
    p.add_argument(
        "--docs",
        nargs="+",
        metavar="FILE",
        help="the documents' text (any document format), for the cal order, which learns from it",
    )
    p.add_argument(
        "--queries",
        metavar="FILE",
        help="the topic statements (any topic format), for the cal order",
    )
    p.add_argument("--no-bias", action="store_true", help="skip the pool-bias test")
    check = p.add_argument_group(
        "checking the recall estimates and the stopping rule",
        "Replay each order with the qrels as the assessor and ask the curve estimator, as "
        "the judging window asks it, at each judged share of every pool; or replay the "
        "stopping rule. Judgments of documents the qrels lack count as not relevant.",
    )
    check.add_argument(
        "--check-estimates",
        action="store_true",
        help="write estimate_coverage.tsv (strategy, judged_share, level, cases, coverage, "
        "median_width, uncalibrated) and estimate_coverage.png to --out: how often the "
        "estimator's intervals held the relevant documents not judged yet",
    )
    check.add_argument(
        "--shares",
        default="0.25,0.5",
        metavar="S,...",
        help="shares of each pool judged at which to ask (default 0.25,0.5)",
    )
    check.add_argument(
        "--levels",
        default="0.8,0.95",
        metavar="L,...",
        help="stated coverage of the intervals checked (default 0.8,0.95)",
    )
    check.add_argument(
        "--seeds",
        type=int,
        default=1,
        metavar="N",
        help="for the checks, judge each topic in the blind order N times, shuffled with "
        "seeds SEED, SEED+1, ... (default 1)",
    )
    check.add_argument(
        "--fit-topics",
        nargs="+",
        metavar="TOPIC",
        help="calibrate the estimator on these topics (ids and ranges; the built-in "
        "calibration as the prior) and check it, and the stopping rule, on the other topics "
        "only: what a project calibrated on its own judged topics would get",
    )
    check.add_argument(
        "--stop-at",
        type=float,
        metavar="R",
        help="replay the stopping rule for target recall R: write stopping.tsv (per order: "
        "the share of topics stopped at recall R or above, judgments spent, and the fewest "
        "that reached R, in hindsight)",
    )
    check.add_argument(
        "--confidence",
        type=float,
        default=0.95,
        metavar="C",
        help="the stopping rule's confidence (default 0.95)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from judgeapp.formats import read_run
    from judgeapp.measures import Judgments, Vocabulary
    from judgeapp.pooling import ORDERS, depth_pool
    from judgeapp.pooling.simulate import FRACTIONS, needed_table, pool_bias, simulate

    strategies = [s.strip() for s in args.strategy.split(",") if s.strip()]
    unknown = [s for s in strategies if s not in ORDERS]
    if unknown or not strategies:
        raise CommandError(
            f"unknown strategy {unknown[0] if unknown else args.strategy!r} "
            f"(choose from {', '.join(ORDERS)})"
        )
    if args.depth < 1:
        raise CommandError("--depth must be at least 1")
    shares, levels = _checks(args)
    if ("suggested" in strategies) != bool(args.suggestions):
        raise CommandError(
            "the suggested order replays an automatic judge: give --strategy suggested "
            "with --suggestions FILE"
        )
    needs_text = [s for s in strategies if ORDERS[s].needs_text]
    if needs_text and not args.docs:
        raise CommandError(
            f"the {needs_text[0]} order learns from the documents' text: give --docs FILE"
        )
    out = Path(args.out)
    try:  # before the work, whose results would otherwise be lost
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot write {out}: {exc.strerror or exc}") from None
    vocab = Vocabulary()
    qrels_file, searched = _assessor(args.qrels)
    if searched:
        print(
            f"{searched} judgments of documents found by searching the collection are left "
            "out: the simulation replays judging from the pool alone",
            file=sys.stderr,
        )
    judgments = Judgments.from_qrels(qrels_file, vocab)
    lists: dict[str, dict[str, np.ndarray]] = {}
    with progress_bar("reading runs") as progress:
        for i, path in enumerate(args.runs):
            progress(i, len(args.runs), Path(path).name)
            run_file = read_run(path)
            name = run_file.tag or Path(path).name
            if name in lists:  # two files with one tag: tell them apart by file name
                name = Path(path).name
            lists[name] = {q: vocab.ids(t.docnos) for q, t in run_file.topics.items()}
    run_qids = {q for topics in lists.values() for q in topics}
    judged = set(judgments.qids)
    qids = select_topics(args.topics, run_qids | judged)
    if qids is None:
        qids = sorted(run_qids & judged, key=str.encode)
    skipped = [q for q in qids if q not in judged]
    qids = [q for q in qids if q in judged and q in run_qids]
    if skipped:
        print(f"topics without judgments, left out: {' '.join(skipped)}", file=sys.stderr)
    if not qids:
        raise CommandError("no topic is both judged in the qrels and retrieved by a run")
    qrels = {q: (judgments.topics[q].docids, judgments.topics[q].grades) for q in qids}
    names = list(lists)
    empty = np.empty(0, np.int64)
    pool = {
        q: depth_pool(q, names, [lists[r].get(q, empty) for r in names], args.depth) for q in qids
    }
    priors = _suggestions(args.suggestions, vocab) if args.suggestions else None
    texts, queries = _texts(args.docs, args.queries, vocab) if needs_text else (None, None)
    with progress_bar("simulating", unit="topic") as progress:
        results = simulate(
            strategies,
            pool,
            lists,
            qrels,
            seed=args.seed,
            min_grade=args.relevance_level,
            progress=progress,
            priors=priors,
            texts=texts,
            queries=queries,
        )
    first = results[strategies[0]]
    pooled = sum(r.pool_size for r in first)
    unjudged = sum(r.unjudged for r in first)
    relevant = sum(r.relevant for r in first)
    print(
        f"{len(qids)} topics, {len(names)} runs, depth {args.depth}: {pooled} pooled documents, "
        f"{relevant} relevant; {unjudged} pooled documents are not in the qrels and count as "
        "non-relevant",
        file=sys.stderr,
    )
    table = needed_table(results)
    header = ["strategy"] + [f"judged_{round(f * 100)}" for f in FRACTIONS]
    print("\t".join(header))
    for name in strategies:
        print("\t".join([name, *map(str, table[name])]))
    sys.stdout.flush()

    write_outputs(out, strategies, results, table, header, vocab.docnos)
    if args.check_estimates or args.stop_at is not None:
        checked = dict(results)
        if "blind" in checked and args.seeds > 1:
            with progress_bar("more blind shuffles", unit="topic") as progress:
                for extra in range(1, args.seeds):
                    again = simulate(
                        ["blind"],
                        pool,
                        lists,
                        qrels,
                        seed=args.seed + extra,
                        min_grade=args.relevance_level,
                        progress=progress,
                    )
                    checked["blind"] = checked["blind"] + again["blind"]
        check_recall(args, out, checked, shares, levels)
    bias = None
    if not args.no_bias:
        with progress_bar("pool bias", unit="run") as progress:
            bias = pool_bias(pool, lists, qrels, min_grade=args.relevance_level, progress=progress)
        write_bias(out, bias)
        print(format_bias(bias), file=sys.stderr, end="")
    print(f"curves, tables and plot written to {out}/", file=sys.stderr)
    return 0


def _fractions(text: str, option: str, *, closed: bool) -> list[float]:
    """A comma-separated list of numbers in (0, 1) ((0, 1] with `closed`)."""
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise CommandError(f"{option} takes numbers separated by commas, not {text!r}") from None
    bad = [v for v in values if not (0.0 < v < 1.0 or (closed and v == 1.0))]
    if bad or not values:
        rule = "in (0, 1]" if closed else "between 0 and 1"
        raise CommandError(f"{option} values must lie {rule}, not {text!r}")
    return values


def _checks(args: argparse.Namespace) -> tuple[list[float], list[float]]:
    """The shares and levels of --check-estimates, and the stopping rule's options,
    checked before any work."""
    shares = _fractions(args.shares, "--shares", closed=False)
    levels = _fractions(args.levels, "--levels", closed=False)
    if args.stop_at is not None and not 0.0 < args.stop_at <= 1.0:
        raise CommandError(f"--stop-at is a recall in (0, 1], not {args.stop_at}")
    if not 0.0 < args.confidence < 1.0:
        raise CommandError(f"--confidence must lie between 0 and 1, not {args.confidence}")
    if args.fit_topics and not (args.check_estimates or args.stop_at is not None):
        raise CommandError("--fit-topics calibrates for --check-estimates or --stop-at")
    if args.seeds < 1:
        raise CommandError(f"--seeds must be at least 1, not {args.seeds}")
    return shares, levels


def check_recall(args, out: Path, results, shares, levels) -> None:
    """--check-estimates and --stop-at: the estimator and the stopping rule replayed."""
    from judgeapp.pooling.calibration import builtin_calibration, fit_calibration
    from judgeapp.pooling.simulate import calibration_cases, check_estimates, check_stopping

    calibration = builtin_calibration()
    if args.fit_topics:
        qids = [r.qid for r in next(iter(results.values()))]
        fit = set(select_topics(args.fit_topics, qids) or ())
        chosen = {s: [r for r in rs if r.qid in fit] for s, rs in results.items()}
        results = {s: [r for r in rs if r.qid not in fit] for s, rs in results.items()}
        if not next(iter(results.values())):
            raise CommandError("--fit-topics leaves no topic to check on")
        with progress_bar("calibrating", unit="topic") as progress:
            cases = calibration_cases(chosen, seed=args.seed, progress=progress)
        if not cases:
            raise CommandError("the --fit-topics give nothing to calibrate on")
        calibration = fit_calibration(
            cases, f"{plural(len(fit), 'topic')} of this collection", prior=calibration
        )
        reported = sorted({r.qid for r in next(iter(results.values()))}, key=str.encode)
        print(
            f"calibrated on {plural(len(fit), 'topic')}; checked on the other "
            f"{plural(len(reported), 'topic')}: {_spec(reported)}",
            file=sys.stderr,
        )
    if args.check_estimates:
        with progress_bar("checking estimates", unit="topic") as progress:
            rows = check_estimates(
                results,
                shares,
                levels,
                calibration=calibration,
                seed=args.seed,
                progress=progress,
            )
        write_coverage(out, rows)
        print(format_coverage(rows), file=sys.stderr, end="")
    if args.stop_at is not None:
        with progress_bar("replaying the stopping rule", unit="topic") as progress:
            stops = check_stopping(
                results,
                args.stop_at,
                args.confidence,
                calibration=calibration,
                seed=args.seed,
                progress=progress,
            )
        write_stopping(out, stops)
        print(format_stopping(stops), file=sys.stderr, end="")


def _spec(qids: list[str]) -> str:
    """Topic ids as ranges where they run on: '601-625 627'."""
    parts: list[str] = []
    run: list[int] = []
    for q in [*qids, None]:
        if q is not None and q.isdigit() and run and int(q) == run[-1] + 1:
            run.append(int(q))
            continue
        if run:
            parts.append(f"{run[0]}-{run[-1]}" if len(run) > 2 else " ".join(map(str, run)))
        run = [int(q)] if q is not None and q.isdigit() else []
        if q is not None and not q.isdigit():
            parts.append(q)
    return " ".join(parts)


COVERAGE_HEADER = [
    "strategy",
    "judged_share",
    "level",
    "cases",
    "coverage",
    "median_width",
    "uncalibrated",
]


def write_tsv(path: Path, header: list[str], rows) -> None:
    with writing(path, newline="") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def write_coverage(out: Path, rows) -> None:
    lines = [
        [
            r.strategy,
            f"{r.share:g}",
            f"{r.level:g}",
            r.cases,
            f"{r.coverage:.4f}",
            f"{r.median_width:g}",
            r.uncalibrated,
        ]
        for r in rows
    ]
    write_tsv(out / "estimate_coverage.tsv", COVERAGE_HEADER, lines)
    plot_coverage(out / "estimate_coverage.png", rows)


def format_coverage(rows) -> str:
    """The coverage table, pooled lines first (what docs/estimators.md shows)."""
    levels = sorted({r.level for r in rows})
    lines = [
        "| strategy | judged | cases | "
        + " | ".join(f"{lv:.0%} covers | {lv:.0%} width" for lv in levels)
        + " | uncalibrated |",
        "|---|---:|---:|" + "---:|---:|" * len(levels) + "---:|",
    ]
    by = {(r.strategy, r.share, r.level): r for r in rows}
    for strategy, share in dict.fromkeys((r.strategy, r.share) for r in rows):
        cells = [by[strategy, share, lv] for lv in levels]
        lines.append(
            f"| {strategy} | {share:.0%} | {cells[0].cases} | "
            + " | ".join(f"{c.coverage:.3f} | {c.median_width:g}" for c in cells)
            + f" | {cells[0].uncalibrated} |"
        )
    pooled = []
    for lv in levels:
        at = [r for r in rows if r.level == lv]
        cases = sum(r.cases for r in at)
        pooled.append(f"{lv:.0%}: {sum(r.coverage * r.cases for r in at) / cases:.3f}")
    lines.append(f"\npooled over strategies and shares, coverage {', '.join(pooled)}")
    return "\n".join(lines) + "\n"


def plot_coverage(path: Path, rows) -> None:
    """Coverage per strategy and share, one colour per stated level, the level drawn as a
    line: a dot below its line is an interval that missed more often than it said."""
    import numpy as np
    from matplotlib.figure import Figure

    levels = sorted({r.level for r in rows})
    cells = list(dict.fromkeys((r.strategy, r.share) for r in rows))
    by = {(r.strategy, r.share, r.level): r for r in rows}
    fig = Figure(figsize=(max(6.0, 0.6 * len(cells) + 2), 5.0), dpi=120)
    ax = fig.add_subplot()
    x = np.arange(len(cells))
    for i, lv in enumerate(levels):
        colour = f"C{i}"
        ax.axhline(lv, color=colour, linewidth=0.8, linestyle=":")
        ax.plot(
            x,
            [by[c[0], c[1], lv].coverage for c in cells],
            "o",
            color=colour,
            label=f"{lv:.0%} intervals",
        )
    ax.set_xticks(
        x, [f"{s} {share:.0%}" for s, share in cells], fontsize=8, rotation=35, ha="right"
    )
    ax.set_ylim(min(0.5, min(r.coverage for r in rows) - 0.05), 1.01)
    ax.set_ylabel("share of cases whose interval held the truth")
    ax.set_title("Recall estimates: coverage by judging order and share judged")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(loc="lower right")
    fig.tight_layout()
    with replacing(path) as tmp:
        fig.savefig(tmp)


STOPPING_HEADER = [
    "strategy",
    "topics",
    "target_recall",
    "confidence",
    "reached",
    "judgments",
    "hindsight",
    "ratio",
    "judged_whole",
]


def write_stopping(out: Path, rows) -> None:
    lines = [
        [
            r.strategy,
            r.topics,
            f"{r.target:g}",
            f"{r.confidence:g}",
            f"{r.reached:.4f}",
            r.spent,
            r.hindsight,
            f"{r.spent / r.hindsight:.3f}" if r.hindsight else "",
            r.judged_whole,
        ]
        for r in rows
    ]
    write_tsv(out / "stopping.tsv", STOPPING_HEADER, lines)


def format_stopping(rows) -> str:
    lines = [
        "| strategy | topics | stopped at the target or above | judgments | hindsight "
        "| ratio | judged whole |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        ratio = f"{r.spent / r.hindsight:.2f}" if r.hindsight else ""
        lines.append(
            f"| {r.strategy} | {r.topics} | {r.reached:.3f} | {r.spent:,} | {r.hindsight:,} "
            f"| {ratio} | {r.judged_whole} |"
        )
    if rows:
        lines.append(
            f"\ntarget recall {rows[0].target:g} at confidence {rows[0].confidence:g}: "
            "'hindsight' is the fewest judgments that reached the target"
        )
    return "\n".join(lines) + "\n"


def _suggestions(path: str, vocab) -> dict[str, dict[int, float]]:
    """qid -> doc id -> score from an automatic judge's file (its grade where a line has
    no score); a document judged twice keeps its last line, as the project does."""
    from judgeapp.formats.judgments import read_judgments

    lines = read_judgments(path)
    ids = vocab.ids([line.docno for line in lines]).tolist()
    priors: dict[str, dict[int, float]] = {}
    for line, doc_id in zip(lines, ids, strict=True):
        score = line.score if line.score is not None else float(line.grade)
        priors.setdefault(line.topic, {})[doc_id] = score
    return priors


def _assessor(path: str):
    """The simulated assessor's grades as a QrelsFile, and how many judgments of documents
    found by searching the collection were left out (a judgments file says which)."""
    from datetime import datetime

    import numpy as np

    from judgeapp.formats import read_qrels
    from judgeapp.formats.judgments import JudgmentLine, detect_format, read_judgments
    from judgeapp.records import QrelsFile

    if detect_format(path) == "qrels":
        return read_qrels(path), 0
    lines = read_judgments(path)
    kept = [r for r in lines if r.found_by != "search"]
    newest: dict[tuple[str, str], JudgmentLine] = {}
    for r in sorted(kept, key=lambda r: (r.updated_at or datetime.min, r.line)):
        newest[(r.topic, r.docno)] = r
    rows = sorted(newest.values(), key=lambda r: r.line)
    qrels = QrelsFile(
        path,
        [r.topic for r in rows],
        [r.docno for r in rows],
        np.array([r.grade for r in rows], dtype=np.int64),
        np.array([r.line for r in rows], dtype=np.int64),
    )
    return qrels, len(lines) - len(kept)


def _texts(docs: list[str], queries: str | None, vocab) -> tuple[dict[int, str], dict[str, str]]:
    """The title and text of every document the runs or qrels name (doc id -> text), and
    each topic's statement (title, description and narrative)."""
    from judgeapp.formats import iter_documents, read_topics

    texts: dict[int, str] = {}
    with progress_bar("reading documents", unit="file") as progress:
        for i, path in enumerate(docs):
            progress(i, len(docs), Path(path).name)
            for doc in iter_documents(path):
                if doc.docno in vocab:
                    texts[vocab.id(doc.docno)] = f"{doc.title}\n{doc.text}"
    statements: dict[str, str] = {}
    for t in read_topics(queries) if queries else ():
        statements[t.qid] = " ".join(x for x in (t.title, t.description, t.narrative) if x)
    return texts, statements


def write_outputs(out: Path, strategies, results, table, header, docnos) -> None:
    import numpy as np

    from judgeapp.pooling.simulate import FRACTIONS, summed_curve

    with writing(out / "judgments_needed.tsv", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(header)
        for name in strategies:
            w.writerow([name, *table[name]])
    with writing(out / "per_topic.csv", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["strategy", "qid", "pooled", "relevant", "unjudged", *header[1:]])
        for name in strategies:
            for r in results[name]:
                needed = [r.judgments_needed(f) for f in FRACTIONS]
                w.writerow([name, r.qid, r.pool_size, r.relevant, r.unjudged, *needed])
    curves = {}
    with writing(out / "found_vs_judged.csv", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["strategy", "judged_per_topic", "judged_total", "found"])
        for name in strategies:
            found = summed_curve(results[name])
            sizes = np.array([r.pool_size for r in results[name]])
            total = np.minimum.outer(np.arange(len(found)), sizes).sum(axis=1)
            curves[name] = (total, found)
            for n, (made, hits) in enumerate(zip(total.tolist(), found.tolist(), strict=True)):
                w.writerow([name, n, made, hits])
    with writing(out / "judging_orders.csv", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["strategy", "qid", "judgment", "docno", "relevant", "found"])
        for name in strategies:
            for r in results[name]:
                for i, (doc, rel, found) in enumerate(
                    zip(docnos(r.order), r.relevant_at.tolist(), r.found.tolist(), strict=True)
                ):
                    w.writerow([name, r.qid, i + 1, doc, int(rel), found])
    plot_curves(
        out / "found_vs_judged.png", curves, sum(r.relevant for r in results[strategies[0]])
    )


def plot_curves(path: Path, curves: dict, relevant: int) -> None:
    # a bare Figure renders with Agg and touches no pyplot state or GUI backend
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4.5), dpi=120)
    ax = fig.add_subplot()
    for name, (made, found) in curves.items():
        ax.plot(made, found, label=name, linewidth=1.4)
    ax.axhline(relevant, color="0.6", linewidth=0.8, linestyle=":")
    ax.set_xlabel("judgments made (summed over topics, the same number per topic)")
    ax.set_ylabel("relevant documents found (all topics)")
    ax.set_title("Relevant found against judgments made")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    with replacing(path) as tmp:
        fig.savefig(tmp)


def write_bias(out: Path, bias) -> None:
    with writing(out / "pool_bias.csv", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(
            [
                "run",
                "unique_docs",
                "unique_relevant",
                f"{bias.measure}_full",
                f"{bias.measure}_reduced",
                "change",
                "change_percent",
                "rank_full",
                "rank_reduced",
            ]
        )
        for r in bias.rows:
            w.writerow(
                [
                    r.run,
                    r.unique_docs,
                    r.unique_relevant,
                    f"{r.score_full:.4f}",
                    f"{r.score_reduced:.4f}",
                    f"{r.change:.4f}",
                    f"{r.change_percent:.1f}",
                    r.rank_full,
                    r.rank_reduced,
                ]
            )


def format_bias(bias) -> str:
    """The pool-bias table as Markdown (what benchmarks/results/pool_bias.md holds)."""
    m = "MAP" if bias.measure == "AP" else bias.measure
    lines = [
        f"| run | unique docs | unique relevant | {m} full | {m} reduced | change | "
        "change % | rank full | rank reduced |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in sorted(bias.rows, key=lambda r: r.rank_full):
        lines.append(
            f"| {r.run} | {r.unique_docs} | {r.unique_relevant} | {r.score_full:.4f} | "
            f"{r.score_reduced:.4f} | {r.change:+.4f} | {r.change_percent:+.1f} | "
            f"{r.rank_full} | {r.rank_reduced} |"
        )
    lines.append("")
    lines.append(
        f"Kendall's tau between the rankings by full and by reduced {m}: "
        f"{bias.tau:.4f} (p = {bias.tau_p:.2g})"
    )
    return "\n".join(lines) + "\n"
