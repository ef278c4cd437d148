"""The TREC-scale project the GUI benchmarks and the GUI-thread watchdog tests share.

`noisy_runs`: each topic has a hidden relevance score for its candidate documents; each run
ranks its top LIST_LEN by a noisy copy of it, better runs (higher quality) copying it more
faithfully, so their pools overlap as real ones do (bench_dashboard uses it alone).

`build_project`: a whole project of that shape, as a TREC collection is: by default 500,000
documents of about 3 KB (1.5 GB of text), 50 topics, 115 runs x 1000 documents a topic,
and a depth-100 pool (about 1,700 documents a topic), judged in blind order and in Hedge.
The documents are sentences of the Cranfield abstracts (resources/demo), drawn at random;
each topic has three theme words, and a document holds sentences with them the more, the
higher its hidden relevance, so that searching for a topic's words finds what the runs
rank high, as in a real collection. Topic t owns documents t*C .. (t+1)*C - 1 (C =
documents / topics) as its candidates. `python benchmarks/trec_scale.py OUT.db` builds one
(`--docs`, `--runs`, `--topics` for smaller ones; OUT may be the URL of an empty
PostgreSQL database, built in place) and says how long each part took.
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

CANDIDATES = 20_000
LIST_LEN = 1000
ROOT = Path(__file__).resolve().parent.parent
CRANFIELD = ROOT / "resources" / "demo" / "cran.all.1400.gz"


def noisy_runs(
    rng: np.random.Generator,
    n_runs: int,
    n_topics: int,
    candidates: int = CANDIDATES,
    quality: tuple[float, float] = (0.3, 3.0),
) -> Iterator[tuple[int, np.ndarray, list[tuple[np.ndarray, np.ndarray]]]]:
    """Per topic: (topic index, hidden scores of the candidates, per run its ranked
    candidate indexes and their scores, best first). Each run's quality is drawn from the
    `quality` range."""
    faithful = rng.uniform(*quality, n_runs)
    for t in range(n_topics):
        truth = rng.standard_normal(candidates) * 2.0
        ranked = []
        for r in range(n_runs):
            noisy = faithful[r] * truth + rng.standard_normal(candidates) * 3.0
            top = np.argpartition(-noisy, LIST_LEN)[:LIST_LEN]
            order = np.argsort(-noisy[top])
            ranked.append((top[order], noisy[top][order]))
        yield t, truth, ranked


# -- a project of that shape ------------------------------------------------------------------
STOP = set(
    "the of and a an in to is for on by with at from as are be this that was were which it its "
    "or not has have been than these can also into two one may such their there other both "
    "when where given found shown results result method obtained present paper used using "
    "problem theory case cases some more most then only over under between made show shows "
    "well each value values number small large should would could about after first second "
    "third within without further".split()
)


def _sentences() -> list[str]:
    """The Cranfield abstracts' sentences (whitespace made single, first letter capital)."""
    with gzip.open(CRANFIELD, "rt", encoding="utf-8") as fh:
        text = fh.read()
    body = " ".join(
        part.split("\n", 1)[1]
        for part in re.split(r"^\.W\s*$", text, flags=re.M)[1:]
        if "\n" in part
    )
    out = []
    for raw in re.split(r"\s\.\s", re.sub(r"^\.[ITABW].*$", " ", body, flags=re.M)):
        words = raw.split()
        if 6 <= len(words) <= 60:
            out.append(" ".join(words).capitalize() + ".")
    return out


def _themes(sentences: list[str], n_topics: int, rng: np.random.Generator) -> list[list[str]]:
    """Three words for each topic, of middling frequency, no two topics alike."""
    df: dict[str, int] = {}
    for s in sentences:
        for w in set(re.findall(r"[a-z]{5,}", s.lower())):
            df[w] = df.get(w, 0) + 1
    words = sorted(w for w, n in df.items() if 15 <= n <= 150 and w not in STOP)
    picked = rng.choice(len(words), size=(n_topics, 3), replace=3 * n_topics > len(words))
    return [[words[i] for i in row] for row in picked]


def docno(i: int) -> str:
    """The docno of document `i` (TREC-like: a source, a number)."""
    return f"TS{i // 10000:03d}-{i % 10000:04d}"


def build_project(
    path: Path | str,
    *,
    docs: int = 500_000,
    runs: int = 115,
    topics: int = 50,
    depth: int = 100,
    seed: int = 1,
    say: Callable[[str], None] = print,
) -> dict[str, float]:
    """Build the project at `path` (which must not exist), or in the empty PostgreSQL
    database whose URL `path` is: documents, topics, runs and two depth pools (blind-D and
    hedge-D). Returns the seconds each part took."""
    from judgeapp.records import Document, RankedTopic, RunFile, Topic
    from judgeapp.services.pools import PoolService
    from judgeapp.store import RunImport, Store

    rng = np.random.default_rng(seed)
    per_topic = docs // topics
    if per_topic < LIST_LEN + 1:
        raise ValueError(f"{docs} documents give {per_topic} a topic; runs need {LIST_LEN + 1}")
    timings: dict[str, float] = {}
    start = time.perf_counter()
    sentences = _sentences()
    themes = _themes(sentences, topics, rng)
    lowered = [s.lower() for s in sentences]
    on_topic = [
        np.array([k for k, s in enumerate(lowered) if any(w in s for w in theme)], dtype=np.int64)
        for theme in themes
    ]
    lists: list[dict[str, RankedTopic]] = [{} for _ in range(runs)]
    truths = []
    # runs of quality 1-4 (of 10,000 candidates a topic): depth-100 pools of about 1,700
    # documents a topic, as TREC's ad hoc pools of 115 runs were
    for t, truth, ranked in noisy_runs(rng, runs, topics, per_topic, quality=(1.0, 4.0)):
        truths.append(truth)
        qid = str(401 + t)
        for r, (top, scores) in enumerate(ranked):
            ids = t * per_topic + top
            lists[r][qid] = RankedTopic(
                [docno(i) for i in ids.tolist()],
                scores.astype(np.float64),
                np.arange(LIST_LEN, dtype=np.int64),
            )
    timings["runs made"] = time.perf_counter() - start

    def documents() -> Iterator[tuple[Document, None]]:
        n_sent = len(sentences)
        for t in range(topics):
            truth = truths[t]
            # a document of relevance s holds about 6 / (1 + e^(2 - s)) theme sentences
            themed = rng.poisson(6.0 / (1.0 + np.exp(2.0 - truth)))
            background = rng.integers(0, n_sent, size=(per_topic, 24))
            lengths = rng.integers(14, 24, size=per_topic)
            pool = on_topic[t]
            for j in range(per_topic):
                picks = background[j, : lengths[j]].tolist()
                k = int(themed[j])
                if k and len(pool):
                    picks[: min(k, len(picks))] = rng.choice(pool, size=min(k, len(picks))).tolist()
                    rng.shuffle(picks)
                body = [sentences[p] for p in picks]
                title = " ".join(body[0].split()[:9]).rstrip(".")
                paragraphs = [" ".join(body[i : i + 5]) for i in range(0, len(body), 5)]
                yield Document(docno(t * per_topic + j), title, "\n\n".join(paragraphs)), None

    if isinstance(path, str) and "://" in path:  # a database on a server: built in place
        store = Store.open(path)
    else:
        path = Path(path)
        tmp = path.with_name(path.name + ".building")
        for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            leftover.unlink(missing_ok=True)
        store = Store.build(path)
    try:
        store.topics.put(
            (
                Topic(
                    str(401 + t),
                    " ".join(theme),
                    f"Find reports on {theme[0]}, {theme[1]} and {theme[2]}.",
                    f"Relevant documents discuss {theme[0]} together with {theme[1]} or "
                    f"{theme[2]}; a passing mention is not enough.",
                ),
                None,
            )
            for t, theme in enumerate(themes)
        )
        t0 = time.perf_counter()
        last = [t0]

        def progress(done: int) -> None:
            if time.perf_counter() - last[0] > 30:
                last[0] = time.perf_counter()
                say(f"  {done:,} documents ({done / (last[0] - t0):,.0f} a second)")

        store.documents.put(documents(), progress)
        timings["documents (with the full-text index)"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        store.runs.add(
            [
                RunImport(RunFile(f"run{r:03d}", f"run{r:03d}", lists[r], topics * LIST_LEN))
                for r in range(runs)
            ]
        )
        timings["runs"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        pools = PoolService(store)
        pools.create_pool(f"blind-{depth}", strategy="depth", params={"depth": depth})
        pools.create_pool(
            f"hedge-{depth}", strategy="depth", params={"depth": depth}, judging_order="hedge"
        )
        timings["pools"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        store.search.optimize()
        timings["full-text index merged"] = time.perf_counter() - t0
        if store.db.building is not None:
            store.publish()
    finally:
        store.close()
    timings["total"] = time.perf_counter() - start
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="a new project file, or an empty PostgreSQL database's URL")
    parser.add_argument("--docs", type=int, default=500_000)
    parser.add_argument("--runs", type=int, default=115)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--depth", type=int, default=100)
    args = parser.parse_args()
    out: Path | str = args.out if "://" in args.out else Path(args.out)
    if isinstance(out, Path) and out.exists():
        raise SystemExit(f"{out} exists")
    timings = build_project(
        out, docs=args.docs, runs=args.runs, topics=args.topics, depth=args.depth
    )
    for part, seconds in timings.items():
        print(f"{part:40s} {seconds:8.1f} s")
    if isinstance(out, Path):
        print(f"{out}: {out.stat().st_size / 1e9:.2f} GB")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
