"""Diversity test data in the TREC Web track's format (``qid subtopic docno grade``).

No diversity qrels are at hand (../shared/data has none), so they are generated: from the
Robust 2003 qrels, each topic gets 2-6 subtopics (seeded by its qid) and each relevant
document is relevant, with its grade, to a random non-empty subset of them; non-relevant
documents are judged 0 for subtopic 1. The runs stay the real ones."""

from __future__ import annotations

import random
from collections.abc import Iterable


def subtopic_rows(
    qrels: Iterable[tuple[str, str, int]], seed: int = 16
) -> list[tuple[str, str, str, int]]:
    """(qid, subtopic, docno, grade) rows derived from ordinary (qid, docno, grade) rows."""
    rows = []
    count: dict[str, int] = {}
    for qid, docno, grade in qrels:
        if qid not in count:
            count[qid] = random.Random(f"{seed}:{qid}").randint(2, 6)
        rng = random.Random(f"{seed}:{qid}:{docno}")
        if grade <= 0:
            rows.append((qid, "1", docno, 0))
            continue
        n = count[qid]
        chosen = [s for s in range(1, n + 1) if rng.random() < 0.4] or [rng.randint(1, n)]
        rows.extend((qid, str(s), docno, grade) for s in chosen)
    return rows


def nested(rows: Iterable[tuple[str, str, str, int]]) -> dict[str, dict[str, dict[str, int]]]:
    out: dict[str, dict[str, dict[str, int]]] = {}
    for qid, sub, docno, grade in rows:
        out.setdefault(qid, {}).setdefault(sub, {})[docno] = grade
    return out


def write(rows: Iterable[tuple[str, str, str, int]], path) -> None:
    with open(path, "w") as fh:
        fh.writelines(f"{q} {s} {d} {g}\n" for q, s, d, g in rows)
