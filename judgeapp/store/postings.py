"""PostgreSQL's term statistics for ranking by BM25 (schema 0008): what GIN cannot say.

A GIN index over the documents' `tsvector` says which documents hold a word, not how often,
so ranking by `ts_rank` read every match's vector (3 KB, out of line): 6.6 s a search at
500,000 documents. Here each batch of documents written (a *segment*, at most
`DOC_BATCH` documents) has

- a row of `search_segments`: its documents' ids (ascending) and lengths (the number of
  word positions of each one's `search` vector: its words less the stop words), with
  their count and sum;
- one row of `search_postings` per lexeme it holds: the ids of the segment's documents
  that hold it (in no particular order: an order asked of `array_agg` cost a sort per
  lexeme) and how often each does (the positions of the lexeme in the
  vector; PostgreSQL keeps at most 256 a lexeme, and none past the 16,383rd word).

The lexemes are those of the documents' stored `search` column (`to_tsvector('english',
...)` of title and text, schema 0007), so what matches is what `@@` matches. They are
written in the transaction that writes the documents (`index_postings`, after them) and
taken out in the one that replaces or deletes them (`unindex_postings`, before): a
segment losing documents has its arrays rewritten without them, or goes when empty.

`bm25` (which store.search.find calls) scores by BM25 (k1 = 1.2, b = 0.75) with FTS5's
idf, log((N - n + 0.5) / (n + 0.5)), taken as 1e-6 where it is not positive (a word in
more than half the documents), so that a project ranks alike on both back ends up to
their tokenizers. Each word of the query is a
term; a prefix (`turb*`) is one term whose frequency in a document is that of all its
lexemes there, and n the documents holding any (as FTS5 counts a prefix). The query's
structure (AND, OR) is evaluated on the postings exactly; a phrase is evaluated as its
words together, each word a term, and the candidates, best first, are then checked with
`@@` until `limit` pass (the vectors read are those of the top candidates only).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from sqlalchemy import Connection

from judgeapp.store.base import raw, raw_binary

K1 = 1.2
B = 0.75
IDF_FLOOR = 1e-6  # FTS5's, for a word in more than half the documents
SEGMENT = 2000  # documents a segment, when the postings are made again from the documents

# for the rest of the transaction, memory enough for a batch's terms and their grouping
# (about 12 MB for 2,000 documents of 3 KB: with PostgreSQL's default 4 MB both went to
# disk), unless the server allows more already
WORK_MEM = (
    "SELECT set_config('work_mem', '64MB', true) "
    "WHERE pg_size_bytes(current_setting('work_mem')) < 64 * 1024 * 1024"
)
# the postings of documents `?` (written already), as one new segment
INDEX = """
WITH terms AS MATERIALIZED (
  SELECT d.doc_id, t.lexeme, coalesce(array_length(t.positions, 1), 1) AS tf
  FROM documents AS d, unnest(d.search) AS t WHERE d.doc_id = ANY (?::int4[])
), segment AS (
  INSERT INTO search_segments (documents, length, doc_ids, lengths)
  SELECT count(*), coalesce(sum(l.n), 0), array_agg(d.doc_id ORDER BY d.doc_id),
         array_agg(coalesce(l.n, 0)::int4 ORDER BY d.doc_id)
  FROM documents AS d LEFT JOIN (SELECT doc_id, sum(tf) AS n FROM terms GROUP BY doc_id) AS l
       USING (doc_id)
  WHERE d.doc_id = ANY (?::int4[])
  HAVING count(*) > 0
  RETURNING segment
)
INSERT INTO search_postings (lexeme, segment, doc_ids, tfs)
SELECT t.lexeme, s.segment, array_agg(t.doc_id), array_agg(least(t.tf, 32767)::int2)
FROM terms AS t CROSS JOIN segment AS s GROUP BY t.lexeme, s.segment
"""
# documents `ids` out of the postings and segments that hold them (`segs`): the postings
# rows are found by the lexemes of the documents' vectors (they are still there) and the
# segment, through the primary key
GONE = "WITH gone AS (SELECT DISTINCT t.lexeme FROM documents AS d, unnest(d.search) AS t "
GONE += "WHERE d.doc_id = ANY (?::int4[])) "
UNINDEX = [
    GONE
    + """DELETE FROM search_postings AS p USING gone WHERE p.lexeme = gone.lexeme
      AND p.segment = ANY (?::int4[]) AND p.doc_ids <@ ?::int4[]""",
    GONE
    + """UPDATE search_postings AS p SET doc_ids = k.doc_ids, tfs = k.tfs FROM (
      SELECT q.lexeme, q.segment, array_agg(u.doc) AS doc_ids, array_agg(u.tf) AS tfs
      FROM search_postings AS q JOIN gone USING (lexeme), unnest(q.doc_ids, q.tfs) AS u(doc, tf)
      WHERE q.segment = ANY (?::int4[]) AND q.doc_ids && ?::int4[] AND NOT u.doc = ANY (?::int4[])
      GROUP BY q.lexeme, q.segment) AS k
    WHERE p.lexeme = k.lexeme AND p.segment = k.segment""",
    "DELETE FROM search_segments WHERE segment = ANY (?::int4[]) AND doc_ids <@ ?::int4[]",
    """UPDATE search_segments AS s SET documents = k.documents, length = k.length,
        doc_ids = k.doc_ids, lengths = k.lengths FROM (
      SELECT q.segment, count(*) AS documents, sum(u.n) AS length,
             array_agg(u.doc ORDER BY u.doc) AS doc_ids, array_agg(u.n ORDER BY u.doc) AS lengths
      FROM search_segments AS q, unnest(q.doc_ids, q.lengths) AS u(doc, n)
      WHERE q.segment = ANY (?::int4[]) AND NOT u.doc = ANY (?::int4[])
      GROUP BY q.segment) AS k
    WHERE s.segment = k.segment""",
]
UNINDEX_PARAMS = [
    ("ids", "segs", "ids"),
    ("ids", "segs", "ids", "ids"),
    ("segs", "ids"),
    ("segs", "ids"),
]


def index_postings(conn: Connection, ids: Sequence[int]) -> None:
    """PostgreSQL: the postings of documents `ids` (just written), as a new segment."""
    if conn.dialect.name == "postgresql" and ids:
        raw(conn, WORK_MEM)
        raw(conn, INDEX, (list(ids), list(ids)))


def unindex_postings(conn: Connection, ids: Sequence[int]) -> None:
    """PostgreSQL: documents `ids` (about to be deleted or replaced) out of the postings."""
    if conn.dialect.name != "postgresql" or not ids:
        return
    values = {"ids": list(ids)}
    values["segs"] = [
        int(s)
        for (s,) in raw(
            conn, "SELECT segment FROM search_segments WHERE doc_ids && ?::int4[]", (values["ids"],)
        )
    ]
    if not values["segs"]:
        return
    for sql, names in zip(UNINDEX, UNINDEX_PARAMS, strict=True):
        raw(conn, sql, tuple(values[n] for n in names))


def rebuild_postings(conn: Connection) -> None:
    """PostgreSQL: the postings made again from every document (after a bulk copy)."""
    if conn.dialect.name != "postgresql":
        return
    raw(conn, "DELETE FROM search_postings")
    raw(conn, "DELETE FROM search_segments")
    ids = [int(i) for (i,) in raw(conn, "SELECT doc_id FROM documents ORDER BY doc_id")]
    for start in range(0, len(ids), SEGMENT):
        index_postings(conn, ids[start : start + SEGMENT])


# -- the query's structure ---------------------------------------------------------------------
@dataclass
class Node:
    """A node of a `tsquery`: a lexeme (`prefix`: any lexeme it begins), or an operator
    (`&`, `|`, `!`, or `<N>` for a phrase) over `args`."""

    op: str = ""
    lexeme: str = ""
    prefix: bool = False
    weights: str = ""
    args: list[Node] = field(default_factory=list)


def parse_tsquery(text: str) -> Node | None:
    """The tree of a `tsquery` as PostgreSQL writes it (`'a' & ('b' <-> 'c':*)`); None for
    the empty query (all stop words). Priorities as PostgreSQL's: `!`, then a phrase's
    `<N>`, then `&`, then `|`."""
    tokens = _tokens(text)
    if not tokens:
        return None
    pos = 0

    def peek() -> str | Node | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str | Node:
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def binary(op: str, lower: Callable[[], Node]) -> Node:
        node = lower()
        while isinstance(peek(), str) and str(peek()).startswith(op):
            node = Node(op=str(take()), args=[node, lower()])
        return node

    def unary() -> Node:
        token = take()
        if isinstance(token, Node):
            return token
        if token == "!":
            return Node(op="!", args=[unary()])
        if token == "(":
            node = alternatives()
            if take() != ")":
                raise ValueError(f"unbalanced tsquery: {text}")
            return node
        raise ValueError(f"unexpected {token!r} in tsquery: {text}")

    def phrase() -> Node:
        return binary("<", unary)

    def conjunction() -> Node:
        return binary("&", phrase)

    def alternatives() -> Node:
        return binary("|", conjunction)

    tree = alternatives()
    if pos != len(tokens):
        raise ValueError(f"unexpected end of tsquery: {text}")
    return tree


def _tokens(text: str) -> list[str | Node]:
    """The lexemes (as leaf nodes) and operators of a tsquery's text."""
    out: list[str | Node] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif c == "'":
            chars, i = [], i + 1
            while True:
                if text[i] == "\\":
                    chars.append(text[i + 1])
                    i += 2
                elif text[i] == "'" and text[i + 1 : i + 2] == "'":
                    chars.append("'")
                    i += 2
                elif text[i] == "'":
                    i += 1
                    break
                else:
                    chars.append(text[i])
                    i += 1
            leaf = Node(lexeme="".join(chars))
            if text[i : i + 1] == ":":
                i += 1
                while i < len(text) and (text[i] == "*" or text[i].upper() in "ABCD"):
                    if text[i] == "*":
                        leaf.prefix = True
                    else:
                        leaf.weights += text[i].upper()
                    i += 1
            out.append(leaf)
        elif c == "<":
            end = text.index(">", i)
            out.append(text[i : end + 1])
            i = end + 1
        else:
            out.append(c)
            i += 1
    return out


def leaves(node: Node) -> list[Node]:
    return [node] if not node.op else [leaf for a in node.args for leaf in leaves(a)]


# -- ranking -----------------------------------------------------------------------------------
def _array(buf: bytes, width: int) -> np.ndarray:
    """The values of a one-dimensional int2[] or int4[] sent by `array_send` (a 20-byte
    header, then each value's 4-byte length and its big-endian bytes), as int64."""
    if len(buf) <= 12:  # no dimensions: empty
        return np.zeros(0, dtype=np.int64)
    layout = np.dtype([("n", ">i4"), ("v", f">i{width}")])
    return np.frombuffer(buf, dtype=layout, offset=20)["v"].astype(np.int64)


@dataclass
class Term:
    """One term of the query over the collection: its documents (ascending, unique), how
    often each holds it, and their lengths."""

    docs: np.ndarray
    tfs: np.ndarray
    lengths: np.ndarray


class Unranked(Exception):
    """A query the postings cannot evaluate (a NOT): the caller finds its matches by GIN."""


def evaluate(node: Node, terms: dict[int, Term], universe: np.ndarray) -> tuple[np.ndarray, bool]:
    """Which of `universe` (every document holding a term, ascending) may match `node`, as
    a mask, and whether they need `@@`'s check (a phrase, or a lexeme's weights: a superset
    is given). Exact for AND, OR, lexemes and prefixes."""
    if not node.op:
        mask = np.zeros(len(universe), dtype=bool)
        mask[np.searchsorted(universe, terms[id(node)].docs)] = True
        return mask, bool(node.weights)
    if node.op == "!":
        raise Unranked("NOT")
    parts = [evaluate(a, terms, universe) for a in node.args]
    mask = parts[0][0]
    for other, _ in parts[1:]:
        mask = (mask | other) if node.op == "|" else (mask & other)
    return mask, node.op.startswith("<") or any(check for _, check in parts)


def read_terms(conn: Connection, tree: Node) -> tuple[dict[int, Term], int, float]:
    """Each leaf's Term (by the leaf's id()), the number of documents and their mean length."""
    found = leaves(tree)
    exact = sorted({leaf.lexeme for leaf in found if not leaf.prefix})
    prefixes = sorted({leaf.lexeme for leaf in found if leaf.prefix})
    where = ["lexeme = ANY (?::text[])"] + ["starts_with(lexeme, ?)"] * len(prefixes)
    # one statement, so one snapshot: the postings, their segments and the totals agree
    # even while an import commits (PostgreSQL's read committed snapshots each statement)
    sql = f"""
    WITH p AS MATERIALIZED (SELECT * FROM search_postings WHERE {" OR ".join(where)})
    SELECT 0, lexeme, array_send(doc_ids), array_send(tfs), 0, 0 FROM p
    UNION ALL
    SELECT 1, '', array_send(doc_ids), array_send(lengths), 0, 0 FROM search_segments
      WHERE segment IN (SELECT segment FROM p)
    UNION ALL
    SELECT 2, '', NULL, NULL, coalesce(sum(documents), 0), coalesce(sum(length), 0)
      FROM search_segments"""
    rows, seg_ids, seg_lengths = [], [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    count = total = 0
    for kind, lexeme, ids, values, n, length in raw_binary(conn, sql, [exact, *prefixes]):
        if kind == 0:
            rows.append((str(lexeme), ids, values))
        elif kind == 1:
            seg_ids.append(_array(ids, 4))
            seg_lengths.append(_array(values, 4))
        else:
            count, total = int(n), int(length)
    known = np.concatenate(seg_ids)
    by_id = np.zeros(int(known.max(initial=0)) + 1, dtype=np.int64)  # (ids are dense)
    by_id[known] = np.concatenate(seg_lengths)
    per_row = []
    for lexeme, ids, tfs in rows:
        docs = _array(ids, 4)
        per_row.append((str(lexeme), docs, _array(tfs, 2), by_id[docs]))
    terms: dict[int, Term] = {}
    for leaf in found:
        mine = [
            r
            for r in per_row
            if (r[0].startswith(leaf.lexeme) if leaf.prefix else r[0] == leaf.lexeme)
        ]
        terms[id(leaf)] = _term(mine)
    return terms, count, total / max(count, 1)


def _term(rows: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]) -> Term:
    """One Term of postings rows (of one lexeme, or of every lexeme of a prefix: a document
    holding several has their frequencies summed)."""
    if not rows:
        empty = np.zeros(0, dtype=np.int64)
        return Term(empty, empty, empty)
    docs = np.concatenate([r[1] for r in rows])
    tfs = np.concatenate([r[2] for r in rows])
    lengths = np.concatenate([r[3] for r in rows])
    if len({r[0] for r in rows}) == 1:  # one lexeme: its segments hold each document once
        order = np.argsort(docs, kind="stable")  # (runs in order: merged)
        return Term(docs[order], tfs[order], lengths[order])
    unique, first, inverse = np.unique(docs, return_index=True, return_inverse=True)
    return Term(unique, np.bincount(inverse, weights=tfs).astype(np.int64), lengths[first])


def bm25(
    terms: Sequence[Term], documents: int, mean_length: float
) -> tuple[np.ndarray, np.ndarray]:
    """Each document holding any of `terms`, ascending, and its BM25 score over them."""
    # sorted, then the first of each run kept; not np.unique: NumPy 2's unique hashes, which
    # took 5x as long on half a million ids (270 against 51 ms) and held the interpreter
    # lock for 46-49 ms at a time (the window's GUI thread stalled behind it), where the
    # sort merges the terms' ascending runs with the lock let go
    merged = np.sort(
        np.concatenate([t.docs for t in terms] + [np.zeros(0, np.int64)]), kind="stable"
    )
    universe = (
        merged[np.concatenate(([True], merged[1:] != merged[:-1]))] if len(merged) else merged
    )
    scores = np.zeros(len(universe))
    for t in terms:
        n = len(t.docs)
        idf = np.log((documents - n + 0.5) / (n + 0.5)) if n else 0.0
        idf = idf if idf > 0 else IDF_FLOOR
        norm = K1 * (1 - B + B * t.lengths / max(mean_length, 1e-9))
        scores[np.searchsorted(universe, t.docs)] += idf * t.tfs * (K1 + 1) / (t.tfs + norm)
    return universe, scores
