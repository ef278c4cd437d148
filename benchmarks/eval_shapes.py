"""Generated TREC qrels and runs of a chosen shape, for timing `evaluate` on every kind of
input (bench_evaluate's shape matrix), written with a fixed seed.

A shape says how many runs, topics and documents per ranking; how many documents each topic
has judged (a depth-k pool of many runs judges 100 to 5,000 a topic); whether scores tie
(``ties="many"``: three-decimal scores, as rounded BM25 or a learned model's outputs
printed with ``%.3f``, about a third of a ranking's entries share their score with
another; ``"none"``: six-decimal scores, all distinct within a topic); how long docnos are
(``short``: MS MARCO passage ids, up to 7 digits; ``base``: TREC newswire style,
``LA010189-0001``, 13 bytes; ``long``: ClueWeb22 ids, ``clueweb22-en0012-34-56789``, 25
bytes, and a URL-like path: 43 to 69 bytes); plain or gzipped files.

Rankings are as real runs are: each retrieves the topic's relevant documents early more
often than chance, judged non-relevant ones next, and the rest from the whole collection;
lines are written by rank, tied entries in no particular order (a system's own, not
trec_eval's docno order), so the reader has to put them in trec_eval's order; with
``lines="shuffled"`` the lines of a run come in random order (topics interleaved).

    python benchmarks/eval_shapes.py OUT_DIR [--runs N] [--judged N] [--ties many|none]
                                     [--docnos short|base|long] [--gzip]
                                     [--lines rank|shuffled] [--seed N]
"""

from __future__ import annotations

import argparse
import gzip
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Shape:
    runs: int = 100
    topics: int = 50
    depth: int = 1000
    judged: int = 500  # judged documents a topic
    ties: str = "none"  # "none" | "many"
    docnos: str = "base"  # "short" | "base" | "long"
    gzip: bool = False
    collection: int = 500_000  # documents in the collection
    lines: str = "rank"  # "rank": written topic by topic, by rank; "shuffled": any order
    seed: int = 28

    def with_(self, **changes) -> Shape:
        return replace(self, **changes)

    def describe(self) -> str:
        return (
            f"{self.runs} runs x {self.topics} x {self.depth}, {self.judged} judged/topic, "
            f"ties {self.ties}, {self.docnos} docnos{', gzip' if self.gzip else ''}"
            f"{', lines shuffled' if self.lines == 'shuffled' else ''}"
        )


def docno_strings(style: str, ids: np.ndarray, rng: np.random.Generator) -> list[str]:
    """The docno of each document number, in one of three styles (see the module)."""
    if style == "short":
        # MS MARCO passage ids are the numbers themselves, scattered over 0-8.8M
        codes = rng.permutation(8_841_823)[: len(ids)]
        return [str(c) for c in codes[ids].tolist()]
    if style == "base":
        return [
            f"LA{(i // 28_000) % 12 + 1:02d}{(i // 1000) % 28 + 1:02d}{88 + i // 336_000}-{i % 1000:04d}"
            for i in ids.tolist()
        ]
    if style == "long":
        words = ("news", "sports", "wiki", "forum", "shop", "blog", "docs", "travel")
        return [
            f"clueweb22-en{i // 100_000:04d}-{(i // 1000) % 100:02d}-{i % 100_000:05d}"
            f"-{words[i % 8]}/{'section/' * (i % 4)}{i:07d}.html"
            for i in ids.tolist()
        ]
    raise ValueError(f"unknown docno style {style!r}")


def generate(shape: Shape, folder: Path) -> tuple[Path, list[Path]]:
    """Write the qrels and runs of ``shape`` into ``folder``: (qrels path, run paths)."""
    rng = np.random.default_rng(shape.seed)
    folder.mkdir(parents=True, exist_ok=True)
    names = docno_strings(shape.docnos, np.arange(shape.collection), rng)
    qids = [str(401 + t) for t in range(shape.topics)]
    judged: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for q in qids:
        docs = rng.choice(shape.collection, shape.judged, replace=False)
        # a pool judges mostly non-relevant documents: grades 0 (70%), 1 (20%), 2 (10%)
        grades = rng.choice(3, size=shape.judged, p=[0.7, 0.2, 0.1])
        judged[q] = (docs, grades)
    suffix = ".gz" if shape.gzip else ""
    opener = (
        (lambda p: gzip.open(p, "wt", compresslevel=6)) if shape.gzip else (lambda p: open(p, "w"))
    )
    qrels = folder / f"qrels.txt{suffix}"
    with opener(qrels) as f:
        for q in qids:
            docs, grades = judged[q]
            f.writelines(
                f"{q} 0 {names[d]} {g}\n"
                for d, g in zip(docs.tolist(), grades.tolist(), strict=True)
            )
    paths = []
    for r in range(shape.runs):
        tag = f"run{r:03d}"
        path = folder / f"{tag}.txt{suffix}"
        lines: list[str] = []
        for q in qids:
            docs, grades = judged[q]
            ranked = _ranking(rng, docs, grades, shape, r)
            scores = _scores(rng, len(ranked), shape.ties)
            lines.extend(
                f"{q} Q0 {names[d]} {i + 1} {s} {tag}\n"
                for i, (d, s) in enumerate(zip(ranked.tolist(), scores, strict=True))
            )
        if shape.lines == "shuffled":  # topics interleaved, ranks out of order
            lines = [lines[i] for i in rng.permutation(len(lines)).tolist()]
        with opener(path) as f:
            f.write("".join(lines))
        paths.append(path)
    return qrels, paths


def _ranking(
    rng: np.random.Generator, docs: np.ndarray, grades: np.ndarray, shape: Shape, r: int
) -> np.ndarray:
    """``depth`` distinct documents: relevant ones early more often than chance (more so
    for some runs than others), judged non-relevant ones next, then any document."""
    others = rng.choice(shape.collection, 2 * shape.depth)
    pool = np.concatenate([docs, others])
    strength = 1.0 + r % 5
    weight = np.concatenate([np.where(grades > 0, 2.0 * strength, strength), np.ones(others.size)])
    # Efraimidis-Spirakis: sorting u ** (1 / w) draws without replacement by weight
    key = rng.random(pool.size) ** (1.0 / weight)
    order = np.argsort(-key, kind="stable")
    ranked = pool[order]
    _, first = np.unique(ranked, return_index=True)
    return ranked[np.sort(first)][: shape.depth]


def _scores(rng: np.random.Generator, n: int, ties: str) -> list[str]:
    """Descending score texts for a ranking of ``n``."""
    if ties == "many":
        # three decimals over a range of ~ n / 2 thousandths: about a third tie
        values = np.sort(rng.uniform(5.0, 5.0 + n / 2000, n))[::-1]
        return [f"{v:.3f}" for v in values.tolist()]
    if ties == "none":
        values = 20.0 - np.arange(n) * 0.0137 - rng.uniform(0, 0.01, n)  # strictly falling
        return [f"{v:.6f}" for v in values.tolist()]
    raise ValueError(f"unknown ties {ties!r}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path)
    base = Shape()
    p.add_argument("--runs", type=int, default=base.runs)
    p.add_argument("--topics", type=int, default=base.topics)
    p.add_argument("--depth", type=int, default=base.depth)
    p.add_argument("--judged", type=int, default=base.judged)
    p.add_argument("--ties", choices=("many", "none"), default=base.ties)
    p.add_argument("--docnos", choices=("short", "base", "long"), default=base.docnos)
    p.add_argument("--gzip", action="store_true")
    p.add_argument("--lines", choices=("rank", "shuffled"), default=base.lines)
    p.add_argument("--seed", type=int, default=base.seed)
    a = p.parse_args()
    shape = Shape(
        a.runs, a.topics, a.depth, a.judged, a.ties, a.docnos, a.gzip, lines=a.lines, seed=a.seed
    )
    qrels, runs = generate(shape, a.out)
    print(f"{shape.describe()}: {qrels}, {len(runs)} runs")


if __name__ == "__main__":
    main()
