"""Searching: the whole collection (ranked, for documents the pool missed) and a topic's pool
(the judging view's search box), over the store's full-text index.

What a user types becomes a `TextQuery`: words, and "quoted phrases"; punctuation separates
words as the index's tokenizer does (`shock-wave` is two words; "shock-wave" a phrase). A search
of the collection ranks every document holding any of the words (BM25 on SQLite, ts_rank on
PostgreSQL), as the interactive searches TREC's assessors and HiCAL's users make; a search
of the pool keeps the documents holding every word, the last one also as the beginning of a
word while it is typed. Every search of the collection, and every search of a pool that
the assessor settles on (Enter), is kept in the project's search log with who made it.

A document found by searching the collection is judged like any other (the same grades,
the same keys) and its judgment counts wherever judgments count; it is recorded as found by
search, with the query, so that what assumes judging from a pool alone (the recall curve's
estimate, `simulate`) can leave it out.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from judgeapp.records import TextQuery
from judgeapp.services.policy import effective_judgments
from judgeapp.store import Store

# a word as the index's tokenizer (unicode61) sees one: letters and digits
WORD = re.compile(r"[^\W_]+")
PHRASE = re.compile(r'"([^"]*)"?')
COLLECTION_LIMIT = 200  # documents a search of the collection shows, best first
SCOPES = ("collection", "pool")


def parse_query(text: str, *, require_all: bool = False, typing: bool = False) -> TextQuery:
    """`text` as a query: "quoted phrases" and words (lower case); with `typing`, the last
    word also matches the words it begins, unless the text ends in a space or a quote."""
    phrases: list[tuple[str, ...]] = []
    rest = 0
    for match in PHRASE.finditer(text):
        phrases.extend((w,) for w in WORD.findall(text[rest : match.start()].lower()))
        words = tuple(WORD.findall(match.group(1).lower()))
        if words:
            phrases.append(words)
        rest = match.end()
    for word in WORD.findall(text[rest:].lower()):
        phrases.append((word,))
    prefix = typing and bool(phrases) and bool(text) and not text[-1].isspace() and text[-1] != '"'
    return TextQuery(tuple(phrases), require_all=require_all, prefix_last=prefix)


@dataclass(frozen=True, slots=True)
class CollectionHit:
    """A document a search of the collection found: its place, whether the topic's pool
    holds it, and the assessor's grade (None: not judged by them), with how many others
    judged it."""

    rank: int
    doc_id: int
    docno: str
    title: str
    score: float
    pooled: bool
    grade: int | None
    others: int


@dataclass(frozen=True, slots=True)
class CollectionResults:
    text: str
    qid: str | None
    hits: list[CollectionHit]
    limit: int
    seconds: float  # the search alone, in the store

    @property
    def complete(self) -> bool:
        """Whether every document matching is listed (fewer than the limit matched)."""
        return len(self.hits) < self.limit


class SearchService:
    """Searches of one assessor (see the module doc)."""

    def __init__(self, store: Store, assessor_id: int, assessor: str) -> None:
        self.store = store
        self.assessor_id = assessor_id
        self.assessor = assessor

    def search_collection(
        self,
        text: str,
        qid: str | None,
        pool: str | None,
        *,
        limit: int = COLLECTION_LIMIT,
        log: bool = True,
    ) -> CollectionResults:
        """The best `limit` documents of the collection for `text`, marked pooled (in
        `pool` for `qid`) and judged (this assessor's grades for `qid`); logged."""
        query = parse_query(text)
        start = time.perf_counter()
        found = self.store.search_documents(query, limit=limit)
        seconds = time.perf_counter() - start
        pooled: set[int] = set()
        grades: dict[int, int] = {}
        others: dict[int, int] = {}
        if qid is not None and found:
            if pool is not None:
                ids = self.store.pooled_doc_ids(pool, [qid]).get(qid)
                pooled = set() if ids is None else set(ids.tolist())
            mine = effective_judgments(self.store, [self.assessor], qid).topics.get(qid)
            if mine is not None:
                grades = dict(zip(mine[0].tolist(), mine[1].tolist(), strict=True))
            rows = self.store.judgment_rows(None, qid)
            for doc, who in zip(rows.doc_ids.tolist(), rows.assessor_ids.tolist(), strict=True):
                if who != self.assessor_id:
                    others[doc] = others.get(doc, 0) + 1
        hits = [
            CollectionHit(
                k + 1,
                h.doc_id,
                h.docno,
                h.title,
                h.score,
                h.doc_id in pooled,
                grades.get(h.doc_id),
                others.get(h.doc_id, 0),
            )
            for k, h in enumerate(found)
        ]
        if log and query.phrases:
            self.store.log_search(self.assessor_id, qid, "collection", text.strip(), len(hits))
        return CollectionResults(text, qid, hits, limit, seconds)

    def search_pool(
        self, pool: str, qid: str, text: str, docnos: Sequence[tuple[int, str]] = ()
    ) -> set[int]:
        """The pooled documents of `qid` holding every word of `text` (the last one as a
        word's beginning while it is typed), and those of `docnos` (doc id, docno) whose
        docno holds the text."""
        query = parse_query(text, require_all=True, typing=True)
        found = {h.doc_id for h in self.store.search_documents(query, limit=None, pool=(pool, qid))}
        needle = text.strip().lower()
        if needle:
            found.update(doc for doc, docno in docnos if needle in docno.lower())
        return found

    def log_pool_search(self, qid: str, text: str, results: int) -> None:
        """Note a search of a pool that the assessor settled on."""
        if text.strip():
            self.store.log_search(self.assessor_id, qid, "pool", text.strip(), results)
