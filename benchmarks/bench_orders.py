"""How many judgments each judging order needs, on real collections (issue 17's table).

    python benchmarks/bench_orders.py [--shared ../shared/data] [--only robust|classic]

Robust 2003 (the 17 runs, depth-100 pool, the official qrels as the assessor) in three
topic sets reported apart: 601-625, the only topics the `maxmean-shared` and `ridge-fusion`
parameters were chosen on; 626-650 and the 50 older topics 303-448 (judged only about 71%
deep, unjudged pooled documents count as non-relevant), held out. Then Cranfield, CISI and CACM with the
demo's seven runs (resources/demo/make_runs.py, made afresh for each collection in a
temporary folder; top 100 per query), depth-100 pool, every query with a relevant pooled
document; `cal` reads the documents' text and the queries there. The `cal` parameters were
chosen on Cranfield queries 1-100.

Each table gives the judgments needed to find 50/80/90/100% of the pool's relevant
documents, summed over topics (`judgeapp.pooling.simulate`, what `simulate` prints), and
each order's ratio to MaxMean's. Prints Markdown (the README's table).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "resources" / "demo"))

from judgeapp.formats import iter_documents, read_qrels, read_run, read_topics  # noqa: E402
from judgeapp.measures import Judgments, Vocabulary  # noqa: E402
from judgeapp.pooling import depth_pool  # noqa: E402
from judgeapp.pooling.simulate import FRACTIONS, needed_table, simulate  # noqa: E402

RUN_ORDERS = [
    "blind",
    "rank",
    "mtf",
    "hedge",
    "maxmean",
    "maxmean-ns",
    "maxmean-shared",
    "ridge-fusion",
]
ROBUST_SETS = [
    ("Robust 2003 601-625 (tuning)", range(601, 626)),
    ("Robust 2003 626-650 (held out)", range(626, 651)),
    ("Robust 2003 303-448 (held out)", range(303, 451)),
]
CLASSIC = {  # folder: (documents, queries, qrels)
    "Cranfield": ("cranfield", "cran.all.1400", "cran.qry", "cranqrel"),
    "CISI": ("cisi", "CISI.ALL", "CISI.QRY", "CISI.REL"),
    "CACM": ("cacm", "cacm.all", "query.text", "qrels.text"),
}
DEPTH = 100


def read_lists(paths, vocab):
    lists = {}
    for path in paths:
        run = read_run(path)
        lists[run.tag] = {q: vocab.ids(t.docnos) for q, t in run.topics.items()}
    return lists


def pools(lists, qrels, qids):
    names = list(lists)
    empty = np.empty(0, np.int64)
    return {q: depth_pool(q, names, [lists[r].get(q, empty) for r in names], DEPTH) for q in qids}


def table(title, results) -> str:
    needed = needed_table(results)
    base = needed["maxmean"]
    cols = [f"judged_{round(f * 100)}" for f in FRACTIONS]
    lines = [
        f"**{title}**",
        "",
        "| order | " + " | ".join(cols) + " | " + " | ".join(f"x{c[7:]}" for c in cols) + " |",
        "|---|" + "---:|" * (2 * len(cols)),
    ]
    for name, row in needed.items():
        ratios = [f"{v / b:.2f}" if b else "-" for v, b in zip(row, base, strict=True)]
        lines.append(
            f"| {name} | " + " | ".join(f"{v:,}" for v in row) + " | " + " | ".join(ratios) + " |"
        )
    return "\n".join(lines) + "\n"


def robust_sets(shared: Path):
    """Robust 2003's topic sets: (title, pool, lists, qrels) for each of `ROBUST_SETS`."""
    vocab = Vocabulary()
    judged = Judgments.from_qrels(read_qrels(shared / "robust03" / "robust03_qrels.txt"), vocab)
    lists = read_lists(sorted((shared / "robust03" / "runs").glob("input.*.gz")), vocab)
    retrieved = {q for topics in lists.values() for q in topics}
    for title, span in ROBUST_SETS:
        qids = [str(q) for q in span if str(q) in judged.topics and str(q) in retrieved]
        qrels = {q: (judged.topics[q].docids, judged.topics[q].grades) for q in qids}
        yield title, pools(lists, qrels, qids), lists, qrels


def robust(shared: Path) -> None:
    for title, pool, lists, qrels in robust_sets(shared):
        start = time.perf_counter()
        results = simulate(RUN_ORDERS, pool, lists, qrels)
        pooled = sum(r.pool_size for r in results["maxmean"])
        relevant = sum(r.relevant for r in results["maxmean"])
        print(
            table(f"{title}: {len(pool)} topics, {pooled:,} pooled, {relevant:,} relevant", results)
        )
        print(f"({time.perf_counter() - start:.0f} s)\n", file=sys.stderr)


def classic_sets(shared: Path):
    """Cranfield, CISI and CACM with the demo's runs: (title, pool, lists, qrels, texts,
    statements) for each of `CLASSIC`; the pool keeps queries with a relevant pooled
    document."""
    from make_runs import make_runs

    for title, (folder, docs, queries, qrels_file) in CLASSIC.items():
        where = shared / "collections" / folder
        with tempfile.TemporaryDirectory() as tmp:
            paths = make_runs(where / docs, where / queries, Path(tmp))
            vocab = Vocabulary()
            judged = Judgments.from_qrels(read_qrels(where / qrels_file), vocab)
            lists = read_lists(paths, vocab)
        texts = {}
        for doc in iter_documents(where / docs):
            if doc.docno in vocab:
                texts[vocab.id(doc.docno)] = f"{doc.title}\n{doc.text}"
        statements = {
            t.qid: " ".join(x for x in (t.title, t.description, t.narrative) if x)
            for t in read_topics(where / queries)
        }
        retrieved = {q for topics in lists.values() for q in topics}
        qids = sorted((q for q in judged.topics if q in retrieved), key=int)
        qrels = {q: (judged.topics[q].docids, judged.topics[q].grades) for q in qids}
        pool = pools(lists, qrels, qids)
        # only queries with a relevant pooled document say anything about an order
        pool = {
            q: t for q, t in pool.items() if np.isin(t.doc_ids, qrels[q][0][qrels[q][1] >= 1]).any()
        }
        yield title, pool, lists, qrels, texts, statements


def classic(shared: Path) -> None:
    for title, pool, lists, qrels, texts, statements in classic_sets(shared):
        start = time.perf_counter()
        results = simulate(
            [*RUN_ORDERS, "cal"], pool, lists, qrels, texts=texts, queries=statements
        )
        pooled = sum(r.pool_size for r in results["maxmean"])
        relevant = sum(r.relevant for r in results["maxmean"])
        print(
            table(
                f"{title}: {len(pool)} queries, {pooled:,} pooled, {relevant:,} relevant", results
            )
        )
        print(f"({time.perf_counter() - start:.0f} s)\n", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--only", choices=("robust", "classic"))
    args = parser.parse_args()
    if args.only != "classic":
        robust(args.shared)
    if args.only != "robust":
        classic(args.shared)


if __name__ == "__main__":
    main()
