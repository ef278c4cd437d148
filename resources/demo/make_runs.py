"""Make the demo project's runs: `python resources/demo/make_runs.py` (`--docs`, `--topics`
and `--out` make the same systems' runs for another collection, e.g. CISI or CACM).

Seven retrieval systems of different quality rank the 1400 Cranfield abstracts for each of the
225 Cranfield queries (top 100 each), written as gzipped TREC runs next to this file. They
exist so that pooling and evaluation have something real to work on; they are deliberately
simple (numpy and scipy.sparse over a bag of words) and deterministic.

Systems:
- bm25-ta:    BM25 (k1 1.2, b 0.75) over title + abstract, light stemming
- bm25-a:     the same over the abstract only
- lm-dir:     query likelihood, Dirichlet smoothing (mu 300: the abstracts are short)
- lm-jm:      query likelihood, Jelinek-Mercer smoothing (lambda 0.7)
- tfidf:      lnc.ltc cosine, no stemming
- bm25-title: BM25 over titles only (weak: titles are short)
- coord:      number of query terms a document contains (weak, many ties)
"""

from __future__ import annotations

import gzip
import re
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy import sparse

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from judgeapp.formats import iter_documents, read_topics  # noqa: E402

DEPTH = 100
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each few
    for from further had has have having he her here hers him his how i if in into is it its
    itself just me more most my no nor not now of off on once only or other our out over own
    same she should so some such than that the their them then there these they this those
    through to too under until up very was we were what when where which while who whom why
    will with would you your yours obtained obey obeyed""".split()
)
TOKEN = re.compile(r"[a-z0-9]+")


def stem(word: str) -> str:
    """A light suffix stripper (plural and -ing/-ed/-ly endings); enough for a demo."""
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("ly", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + keep
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def tokens(text: str, stemming: bool = True) -> list[str]:
    words = [w for w in TOKEN.findall(text.lower()) if w not in STOPWORDS and len(w) > 1]
    return [stem(w) for w in words] if stemming else words


class Index:
    """A term-document count matrix (documents x terms) over one text field."""

    def __init__(self, texts: list[str], stemming: bool = True) -> None:
        self.stemming = stemming
        self.vocab: dict[str, int] = {}
        rows, cols = [], []
        for d, text in enumerate(texts):
            for term in tokens(text, stemming):
                rows.append(d)
                cols.append(self.vocab.setdefault(term, len(self.vocab)))
        data = np.ones(len(rows))
        shape = (len(texts), len(self.vocab))
        self.tf = sparse.csr_matrix((data, (rows, cols)), shape=shape)
        self.tf.sum_duplicates()
        self.doc_len = np.asarray(self.tf.sum(axis=1)).ravel()
        self.df = np.bincount(self.tf.indices, minlength=len(self.vocab))
        self.cf = np.asarray(self.tf.sum(axis=0)).ravel()
        self.n_docs = len(texts)

    def query_terms(self, text: str) -> np.ndarray:
        ids = [self.vocab[t] for t in tokens(text, self.stemming) if t in self.vocab]
        return np.array(ids, dtype=np.int64)


def bm25(index: Index, terms: np.ndarray, k1: float = 1.2, b: float = 0.75) -> np.ndarray:
    idf = np.log(1 + (index.n_docs - index.df[terms] + 0.5) / (index.df[terms] + 0.5))
    tf = index.tf[:, terms].toarray()
    norm = k1 * (1 - b + b * index.doc_len / index.doc_len.mean())
    return ((tf * (k1 + 1)) / (tf + norm[:, None]) * idf).sum(axis=1)


def lm_dirichlet(index: Index, terms: np.ndarray, mu: float = 300.0) -> np.ndarray:
    tf = index.tf[:, terms].toarray()
    p_coll = index.cf[terms] / index.cf.sum()
    return np.log((tf + mu * p_coll) / (index.doc_len[:, None] + mu)).sum(axis=1)


def lm_jelinek_mercer(index: Index, terms: np.ndarray, lam: float = 0.7) -> np.ndarray:
    tf = index.tf[:, terms].toarray()
    p_coll = index.cf[terms] / index.cf.sum()
    p_doc = tf / np.maximum(index.doc_len, 1)[:, None]
    return np.log(lam * p_coll + (1 - lam) * p_doc).sum(axis=1)


def tfidf_cosine(index: Index, terms: np.ndarray) -> np.ndarray:
    # lnc for documents, ltc for the query
    doc = index.tf.copy()
    doc.data = 1 + np.log(doc.data)
    lengths = np.sqrt(np.asarray(doc.multiply(doc).sum(axis=1)).ravel())
    lengths[lengths == 0] = 1
    q_terms, q_tf = np.unique(terms, return_counts=True)
    q = (1 + np.log(q_tf)) * np.log(index.n_docs / index.df[q_terms])
    q_norm = np.linalg.norm(q) or 1.0
    return (doc[:, q_terms].toarray() @ (q / q_norm)) / lengths


def coordination(index: Index, terms: np.ndarray) -> np.ndarray:
    return (index.tf[:, np.unique(terms)].toarray() > 0).sum(axis=1).astype(float)


def write_run(
    path: Path,
    tag: str,
    index: Index,
    score: Callable[[Index, np.ndarray], np.ndarray],
    topics: list,
    docnos: list[str],
) -> None:
    lines = []
    for topic in topics:
        terms = index.query_terms(topic.title or topic.description)
        if len(terms) == 0:
            continue
        scores = score(index, terms)
        # best first; among equal scores the docno order is trec_eval's (descending)
        order = sorted(range(len(docnos)), key=lambda i: (scores[i], docnos[i]), reverse=True)
        for rank, i in enumerate(order[:DEPTH], start=1):
            lines.append(f"{topic.qid} Q0 {docnos[i]} {rank} {scores[i]:.6f} {tag}\n")
    # mtime 0 and no file name in the header: the same runs give byte-identical files
    with (
        open(path, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as gz,
    ):
        gz.write("".join(lines).encode("utf-8"))


def make_runs(docs_path: Path, topics_path: Path, out: Path) -> list[Path]:
    """The seven systems' runs for any collection with a documents file and a topics file
    (what the Cranfield demo uses, and the benchmarks use for CISI and CACM)."""
    docs = list(iter_documents(docs_path))
    topics = read_topics(topics_path)
    docnos = [d.docno for d in docs]
    title_abstract = Index([f"{d.title} {d.text}" for d in docs])
    abstract = Index([d.text for d in docs])
    titles = Index([d.title for d in docs])
    unstemmed = Index([f"{d.title} {d.text}" for d in docs], stemming=False)
    systems = [
        ("bm25-ta", title_abstract, bm25),
        ("bm25-a", abstract, bm25),
        ("lm-dir", title_abstract, lm_dirichlet),
        ("lm-jm", title_abstract, lm_jelinek_mercer),
        ("tfidf", unstemmed, tfidf_cosine),
        ("bm25-title", titles, bm25),
        ("coord", title_abstract, coordination),
    ]
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for tag, index, score in systems:
        path = out / f"{tag}.run.gz"
        write_run(path, tag, index, score, topics, docnos)
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=Path, default=HERE / "cran.all.1400.gz")
    parser.add_argument("--topics", type=Path, default=HERE / "cran.qry.gz")
    parser.add_argument("--out", type=Path, default=HERE / "runs")
    args = parser.parse_args(argv)
    for path in make_runs(args.docs, args.topics, args.out):
        print(f"wrote {path.name}")


if __name__ == "__main__":
    main()
