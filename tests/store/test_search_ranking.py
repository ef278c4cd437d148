"""Searching the collection ranks by BM25 on both back ends (SQLite: FTS5's `bm25()`;
PostgreSQL: the term statistics of schema 0008, judgeapp.store.postings), checked against
BM25 computed here, in plain Python, from each back end's own tokens of a real collection
(FTS5's `fts5vocab` instances; PostgreSQL's `to_tsvector` text). On PostgreSQL also: phrase
and prefix queries match what `@@` matches; the postings follow documents replaced, an
import that fails leaves none, a copied project and the upgrade from 0007 fill them."""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from judgeapp.records import Document
from judgeapp.services.imports import import_documents, import_topics
from judgeapp.services.search import parse_query
from judgeapp.store import Store
from judgeapp.store.postings import parse_tsquery

K1, B = 1.2, 0.75  # Robertson's, as FTS5


def bm25_reference(
    docs: dict[int, Counter], query_terms: list[str], prefix: bool = False
) -> dict[int, float]:
    """BM25 of every document holding a term, summed over the query's terms (a repeated
    term counts again, as FTS5 counts each phrase): idf log((N - n + 0.5) / (n + 0.5)),
    1e-6 where not positive (FTS5's). `prefix`: the last term is a prefix, one term whose
    frequency is that of every token it begins."""
    n_docs = len(docs)
    lengths = {d: sum(c.values()) for d, c in docs.items()}
    mean = sum(lengths.values()) / n_docs
    scores: dict[int, float] = {}
    for k, term in enumerate(query_terms):
        last_prefix = prefix and k == len(query_terms) - 1
        tf = {
            d: sum(n for t, n in c.items() if t.startswith(term)) if last_prefix else c.get(term, 0)
            for d, c in docs.items()
        }
        tf = {d: n for d, n in tf.items() if n}
        idf = math.log((n_docs - len(tf) + 0.5) / (len(tf) + 0.5))
        idf = idf if idf > 0 else 1e-6
        for d, f in tf.items():
            norm = K1 * (1 - B + B * lengths[d] / mean)
            scores[d] = scores.get(d, 0.0) + idf * f * (K1 + 1) / (f + norm)
    return scores


TSVECTOR_ENTRY = re.compile(r"'((?:[^'\\]|''|\\.)*)'(?::([0-9A-D,]+))?")


def parse_tsvector(text: str) -> Counter:
    """Each lexeme of a tsvector's text (`'shock':3,7A 'wave':4`) and its positions' count."""
    out: Counter = Counter()
    for lexeme, positions in TSVECTOR_ENTRY.findall(text):
        word = re.sub(r"\\(.)", r"\1", lexeme.replace("''", "'"))
        out[word] += len(positions.split(",")) if positions else 1
    return out


def tokens(store: Store) -> tuple[dict[int, Counter], Callable[[str], str | None]]:
    """Each document's tokens and their counts as the back end indexed them, by doc id, and
    the function giving a query word's token (None for a stop word)."""
    with store.db.read() as conn:
        if conn.dialect.name == "postgresql":
            rows = conn.exec_driver_sql(
                "SELECT doc_id, to_tsvector('english', coalesce(title, '') || ' ' || "
                "coalesce(text, ''))::text FROM documents"
            ).all()
            docs = {int(d): parse_tsvector(v) for d, v in rows}

            @functools.cache
            def token(word: str) -> str | None:
                with store.db.read() as c:
                    v = c.exec_driver_sql(
                        "SELECT to_tsvector('english', %s)::text", (word,)
                    ).scalar_one()
                found = list(parse_tsvector(v))
                return found[0] if len(found) == 1 else None

            return docs, token
        conn.exec_driver_sql(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, documents_fts, "
            "instance)"
        )
        docs = {int(d): Counter() for (d,) in conn.exec_driver_sql("SELECT doc_id FROM documents")}
        for term, doc, n in conn.exec_driver_sql(
            "SELECT term, doc, count(*) FROM temp.vocab GROUP BY term, doc"
        ):
            docs[int(doc)][str(term)] = int(n)

    @functools.cache
    def fts5_token(word: str) -> str | None:
        import sqlite3

        db = sqlite3.connect(":memory:")
        db.execute(
            "CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')"
        )
        db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, row)")
        db.execute("INSERT INTO t VALUES (?)", (word,))
        found = [r[0] for r in db.execute("SELECT term FROM v")]
        db.close()
        return found[0] if len(found) == 1 else None

    return docs, fts5_token


def _cranfield(shared_data: Path, where: str) -> Iterator[Store]:
    folder = shared_data / "collections" / "cranfield"
    with Store.open(where) as store:
        import_documents(store, [folder / "cran.all.1400"])
        import_topics(store, [folder / "cran.qry"])
        yield store


@pytest.fixture
def cranfield(shared_data: Path, project_db: str) -> Iterator[Store]:
    yield from _cranfield(shared_data, project_db)


@pytest.fixture
def pg_cranfield(shared_data: Path, pg_server) -> Iterator[Store]:
    from tests.conftest import new_pg_project

    yield from _cranfield(shared_data, new_pg_project(pg_server))


@pytest.fixture
def pg_project(pg_server) -> str:
    from tests.conftest import new_pg_project

    return new_pg_project(pg_server)


def test_the_collection_ranks_by_bm25_computed_from_the_back_ends_own_tokens(cranfield):
    store = cranfield
    docs, token = tokens(store)
    assert len(docs) == 1400
    docno_of = store.documents.docnos_of(docs)
    ids = {d: i for i, d in docno_of.items()}
    queries = [t.title for t in store.topics.all()][:40]
    checked = 0
    for text in queries:
        query = parse_query(text)
        words = [w for phrase in query.phrases for w in phrase]
        terms = [token(w) for w in words if token(w) is not None]
        expected = bm25_reference(docs, terms)
        hits = store.search.find(query, limit=50)
        assert len(hits) == min(50, len(expected)), text
        assert [h.score for h in hits] == pytest.approx(
            sorted(expected.values(), reverse=True)[:50], rel=1e-9
        ), text
        for h in hits:  # each document with its own score (ties may come in either order)
            assert h.score == pytest.approx(expected[ids[h.docno]], rel=1e-9), text
        assert {docno_of[d] for d in expected} == {
            h.docno for h in store.search.find(query, limit=None)
        }
        checked += 1
    assert checked == 40


@pytest.mark.postgres
@pytest.mark.parametrize(
    "text",
    [
        '"boundary layer"',
        '"boundary layer" transition',
        'heat "flat plate"',
        '"the speed of sound"',  # stop words in a phrase: a distance of 2 between words
        "shock-wave",  # two words
    ],
)
def test_phrases_match_what_the_gin_index_matches_ranked_by_bm25(pg_cranfield, text):
    _same_as_gin(pg_cranfield, parse_query(text), parse_query(text, require_all=True))


@pytest.mark.postgres
@pytest.mark.parametrize("text", ["turb", "boundary lay", "a", "heat transf", "supersonic"])
def test_the_last_word_being_typed_matches_as_a_prefix(pg_cranfield, text):
    _same_as_gin(pg_cranfield, parse_query(text, typing=True))


def _same_as_gin(store: Store, *queries) -> None:
    """The query's matches (limit None) are `@@`'s, its top 20 the best 20 of them by BM25
    over its words (each word a term; the last one's prefix when it is typed)."""
    from judgeapp.store.search import tsquery_text

    docs, token = tokens(store)
    ids = {d: i for i, d in store.documents.docnos_of(docs).items()}
    for query in queries:
        with store.db.read() as conn:
            gin = {
                int(d)
                for (d,) in conn.exec_driver_sql(
                    "SELECT doc_id FROM documents WHERE search @@ to_tsquery('english', %s)",
                    (tsquery_text(query),),
                )
            }
            prefix_text = conn.exec_driver_sql(
                "SELECT to_tsquery('english', %s)::text", (tsquery_text(query),)
            ).scalar_one()
        everything = store.search.find(query, limit=None)
        assert {ids[h.docno] for h in everything} == gin
        if parse_tsquery(prefix_text) is None:  # stop words only ("a"): nothing, as before
            assert everything == []
            continue
        words = [w for phrase in query.phrases for w in phrase]
        terms = [token(w) for w in words[:-1] if token(w) is not None]
        if query.prefix_last:  # the prefix as PostgreSQL stems it
            tree = parse_tsquery(prefix_text)
            assert tree is not None
            terms.append(next(leaf.lexeme for leaf in _leaves(tree) if leaf.prefix))
        elif token(words[-1]) is not None:
            terms.append(token(words[-1]))
        expected = bm25_reference(docs, terms, prefix=query.prefix_last)
        best = sorted((expected[d] for d in gin), reverse=True)[:20]
        top = store.search.find(query, limit=20)
        assert [h.score for h in top] == pytest.approx(best, rel=1e-9)
        assert gin or query.require_all  # (the phrase is in the collection)


def _leaves(node):
    return [node] if not node.op else [x for a in node.args for x in _leaves(a)]


def test_the_tsquery_parser_reads_what_postgresql_writes():
    tree = parse_tsquery("'e-mail' <-> 'e' <-> 'mail' & 'wing' | 'flow' <2> 'air':*")
    assert tree is not None and tree.op == "|"
    left, right = tree.args
    assert left.op == "&" and left.args[0].op == "<->" and left.args[1].lexeme == "wing"
    assert right.op == "<2>" and right.args[1].lexeme == "air" and right.args[1].prefix
    quoted = parse_tsquery("'it''s' & ( 'a' | 'b' ) & !'c'")
    assert quoted is not None and quoted.args[0].args[0].lexeme == "it's"
    assert quoted.args[0].args[1].op == "|" and quoted.args[1].op == "!"
    assert parse_tsquery("") is None


# -- the postings follow the documents (PostgreSQL) -------------------------------------------
def postings(store: Store) -> tuple[set, dict]:
    """What the postings say: (lexeme, doc id, frequency) triples, and each document's length."""
    with store.db.read() as conn:
        triples = {
            (str(lex), int(d), int(tf))
            for lex, d, tf in conn.exec_driver_sql(
                "SELECT p.lexeme, u.d, u.tf FROM search_postings p, unnest(p.doc_ids, p.tfs) u(d, tf)"
            )
        }
        lengths = {
            int(d): int(n)
            for d, n in conn.exec_driver_sql(
                "SELECT u.d, u.n FROM search_segments s, unnest(s.doc_ids, s.lengths) u(d, n)"
            )
        }
        totals = conn.exec_driver_sql(
            "SELECT count(*), sum(documents), sum(length), sum(cardinality(doc_ids)) "
            "FROM search_segments"
        ).one()
    if lengths:
        assert totals[1] == totals[3] == len(lengths) and totals[2] == sum(lengths.values())
    return triples, lengths


def expected_postings(store: Store) -> tuple[set, dict]:
    """The same, from the documents' texts (to_tsvector of title and text), as the documents
    are now."""
    docs, _ = tokens(store)
    triples = {(t, d, n) for d, c in docs.items() for t, n in c.items()}
    return triples, {d: sum(c.values()) for d, c in docs.items()}


def doc(docno: str, text: str) -> tuple[Document, str]:
    return Document(docno, "", text), "test"


@pytest.mark.postgres
def test_documents_replaced_leave_no_stale_postings(pg_project, monkeypatch):
    import judgeapp.store.documents as documents

    monkeypatch.setattr(documents, "DOC_BATCH", 3)  # segments of three documents
    with Store.open(pg_project) as store:
        store.documents.put([doc(f"d{i}", f"alpha word{i} shared") for i in range(10)])
        assert postings(store) == expected_postings(store)
        # d2 (in the first segment with d0, d1), d3-d5 (the whole second) and d9 replaced
        store.documents.put(
            [doc(d, f"omega {d} shared shared") for d in ("d2", "d3", "d4", "d5", "d9")]
        )
        assert postings(store) == expected_postings(store)
        assert {h.docno for h in store.search.find(parse_query("alpha"), limit=None)} == {
            "d0", "d1", "d6", "d7", "d8"
        }  # fmt: skip
        assert {h.docno for h in store.search.find(parse_query("omega"), limit=None)} == {
            "d2", "d3", "d4", "d5", "d9"
        }  # fmt: skip
        assert [h.docno for h in store.search.find(parse_query("word3"))] == []
        with store.db.read() as conn:  # d3-d5's and d9's segments went whole
            sizes = conn.exec_driver_sql(
                "SELECT documents FROM search_segments ORDER BY segment"
            ).scalars()
            assert list(sizes) == [2, 3, 3, 2]  # d0 d1 | d6-d8 | d2-d4 | d5 d9


@pytest.mark.postgres
def test_an_import_that_fails_leaves_no_postings(pg_project, monkeypatch):
    import judgeapp.store.documents as documents

    monkeypatch.setattr(documents, "DOC_BATCH", 4)

    def stream():
        for i in range(10):
            yield doc(f"d{i}", f"gamma text {i}")
        raise ValueError("line 11: broken")

    with Store.open(pg_project) as store:
        store.documents.put([doc("k1", "kept gamma")])
        before = postings(store)
        with pytest.raises(ValueError, match="broken"):
            store.documents.put(stream())
        assert postings(store) == before and len(before[1]) == 1
        assert [h.docno for h in store.search.find(parse_query("gamma"))] == ["k1"]


@pytest.mark.postgres
def test_a_project_copied_to_postgresql_has_its_postings(tmp_path, pg_server):
    from judgeapp.store.copying import copy_project
    from tests.conftest import new_pg_project

    with Store.open(tmp_path / "p.db") as source:
        source.documents.put([doc(f"d{i}", f"delta {'x ' * i}") for i in range(5)])
        with Store.open(new_pg_project(pg_server)) as target:
            copy_project(source.db, target.db)
            assert postings(target) == expected_postings(target)
            assert len(postings(target)[1]) == 5
            assert target.search.find(parse_query("delta"))[0].docno == "d0"


@pytest.mark.postgres
def test_the_upgrade_to_0008_fills_the_postings_of_the_documents_there(pg_server):
    from tests.conftest import pg_project_at

    url = pg_project_at(
        pg_server,
        "0007",
        [
            "INSERT INTO docnos (docno) SELECT 'd' || i FROM generate_series(1, 2500) i",
            "INSERT INTO documents (doc_id, title, text, fields, source) SELECT id, "
            "'Title ' || id, 'wing number ' || id || repeat(' flow', mod(id, 7)), '{}', 'x' "
            "FROM docnos",
        ],
    )
    with Store.open(url) as store:
        assert postings(store) == expected_postings(store)
        assert len(postings(store)[1]) == 2500
        with store.db.read() as conn:  # in segments of 2,000
            assert conn.exec_driver_sql("SELECT count(*) FROM search_segments").scalar() == 2
        top = store.search.find(parse_query("flow"), limit=3)
        assert [h.score for h in top] == pytest.approx(
            sorted(bm25_reference(tokens(store)[0], ["flow"]).values(), reverse=True)[:3]
        )
