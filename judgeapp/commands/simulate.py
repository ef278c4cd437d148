"""`simulate --qrels Q --runs RUN... --depth K --strategy S[,S...]`: replay judging orders with
qrels as the assessor, and run the pool-bias test."""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from judgeapp.commands import CommandError, progress_bar
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
    bias = None
    if not args.no_bias:
        with progress_bar("pool bias", unit="run") as progress:
            bias = pool_bias(pool, lists, qrels, min_grade=args.relevance_level, progress=progress)
        write_bias(out, bias)
        print(format_bias(bias), file=sys.stderr, end="")
    print(f"curves, tables and plot written to {out}/", file=sys.stderr)
    return 0


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
    from judgeapp.formats.model import QrelsFile

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
