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
import sqlite3
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

from judgeapp.records import TextQuery
from judgeapp.services.policy import effective_judgments
from judgeapp.store import Store
from judgeapp.store.search import TOKENIZE, fts5_expression

# a word as the index's tokenizer (unicode61) sees one: letters and digits
WORD = re.compile(r"[^\W_]+")
PHRASE = re.compile(r'"([^"]*)"?')
COLLECTION_LIMIT = 200  # documents a search of the collection shows, best first
SCOPES = ("collection", "pool")


# English function words: left out of a ranked search of the collection (they match nearly
# every document, and ranking every match is what a search costs: "the" alone ranked all
# 500,000 documents of the benchmark collection, 2.2 s), as PostgreSQL's `english`
# configuration leaves its own stop words out. Kept in phrases, and when nothing else is
# asked for.
STOP_WORDS = frozenset(
    "a about above after again against all am an and any are as at be because been before "
    "being below between both but by can did do does doing down during each few for from "
    "further had has have having he her here hers herself him himself his how i if in into "
    "is it its itself just me more most my myself no nor not now of off on once only or other "
    "our ours ourselves out over own same she should so some such than that the their theirs "
    "them themselves then there these they this those through to too under until up very was "
    "we were what when where which while who whom why will with you your yours yourself "
    "yourselves".split()
)


def parse_query(
    text: str, *, require_all: bool = False, typing: bool = False, stop_words: bool = False
) -> TextQuery:
    """`text` as a query: "quoted phrases" and words (lower case); with `typing`, the last
    word also matches the words it begins, unless the text ends in a space or a quote; with
    `stop_words`, single words of STOP_WORDS are left out (unless nothing else is left)."""
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
    if stop_words:
        kept = [p for p in phrases if len(p) > 1 or p[0] not in STOP_WORDS]
        phrases = kept or phrases
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
        query = parse_query(text, stop_words=True)
        start = time.perf_counter()
        found = self.store.search.find(query, limit=limit)
        seconds = time.perf_counter() - start
        pooled: set[int] = set()
        grades: dict[int, int] = {}
        others: dict[int, int] = {}
        if qid is not None and found:
            if pool is not None:
                ids = self.store.pools.doc_ids(pool, [qid]).get(qid)
                pooled = set() if ids is None else set(ids.tolist())
            mine = effective_judgments(self.store, [self.assessor], qid).topics.get(qid)
            if mine is not None:
                grades = dict(zip(mine[0].tolist(), mine[1].tolist(), strict=True))
            rows = self.store.judgments.rows(None, qid)
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
            self.store.search.log(self.assessor_id, qid, "collection", text.strip(), len(hits))
        return CollectionResults(text, qid, hits, limit, seconds)

    def log_pool_search(self, qid: str, text: str, results: int) -> None:
        """Note a search of a pool that the assessor settled on."""
        if text.strip():
            self.store.search.log(self.assessor_id, qid, "pool", text.strip(), results)


class PoolIndex:
    """A topic's pooled documents in a full-text index of their own: SQLite's FTS5 in
    memory, with the collection index's tokenizer (Porter stemming over Unicode words).
    The judging view's search box asks it at every key: the collection's index cannot test
    a few thousand documents against a query without reading each word's whole posting
    list (on the 500,000-document benchmark collection 90-210 ms for common words, 0.4-7 s
    for a word's beginning, which FTS5 answers by merging the lists of every word it
    begins), while an index of the pool answers in milliseconds whatever the collection's
    size. Built from the texts the judging view loads for the topic anyway (0.5 s of CPU
    for 1,800 documents of 3 KB, in a worker); both back ends use it, so that the search
    box behaves alike on either."""

    def __init__(self, documents: Iterable[tuple[int, str, str, str]]) -> None:
        """`documents`: (doc id, docno, title, text) of each pooled document."""
        self._lock = threading.Lock()
        self._docnos: list[tuple[int, str]] = []
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        # prefix indexes of one to three letters: the first letters of a word typed are
        # answered from them (1 ms) instead of merging the lists of every word they begin
        # (20 ms for one letter over 1,800 documents); the index takes 0.5 s of CPU to build
        # instead of 0.2 s, in the worker, with the interpreter lock let go
        self._db.execute(
            "CREATE VIRTUAL TABLE pool USING fts5(title, text, "
            f"tokenize='{TOKENIZE}', prefix='1 2 3')"
        )
        rows = []
        for doc_id, docno, title, text in documents:
            self._docnos.append((doc_id, docno.lower()))
            rows.append((doc_id, title, text))
        self._db.executemany("INSERT INTO pool (rowid, title, text) VALUES (?, ?, ?)", rows)
        self._db.commit()

    def __len__(self) -> int:
        return len(self._docnos)

    def matches(self, text: str) -> set[int]:
        """The documents holding every word of `text` (the last one also as a word's
        beginning while it is typed), and those whose docno holds the text."""
        query = parse_query(text, require_all=True, typing=True)
        found: set[int] = set()
        if query.phrases:
            with self._lock:
                rows = self._db.execute(
                    "SELECT rowid FROM pool WHERE pool MATCH ?", (fts5_expression(query),)
                ).fetchall()
            found = {int(r[0]) for r in rows}
        needle = text.strip().lower()
        if needle:
            found.update(doc for doc, docno in self._docnos if needle in docno)
        return found

    def close(self) -> None:
        with self._lock:
            self._db.close()
