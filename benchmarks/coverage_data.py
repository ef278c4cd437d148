"""Topics where the truth is known, for benchmarks/estimator_coverage.py.

Each collection gives run tag -> qid -> doc ids (rank order) and qid -> (doc ids, grades):

- Robust 2003 (../shared/data/robust03): the 17 runs; topics 601-650 are judged for this
  pool to depth 125 (tuning 601-625, held out 626-650); the older topics 303-448 (held out)
  are judged about 71% at depth 100, and a pooled document the qrels lack counts as
  non-relevant, as in `simulate`.
- the classic collections (Cranfield, CISI, CACM): the runs the demo's run generator
  (resources/demo/make_runs.py) writes for each collection's own documents and queries, top
  100 (every topic with qrels and with a query term the index knows).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "resources" / "demo"))

from judgeapp.formats import read_qrels, read_run  # noqa: E402
from judgeapp.measures import Judgments, Vocabulary  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
ROBUST = SHARED / "robust03"
CLASSIC = {
    "cranfield": ("cran.all.1400", "cran.qry", "cranqrel"),
    "cisi": ("CISI.ALL", "CISI.QRY", "CISI.REL"),
    "cacm": ("cacm.all", "query.text", "qrels.text"),
}

Lists = dict[str, dict[str, np.ndarray]]
Qrels = dict[str, tuple[np.ndarray, np.ndarray]]


def robust03() -> tuple[Lists, Qrels]:
    vocab = Vocabulary()
    judged = Judgments.from_qrels(read_qrels(ROBUST / "robust03_qrels.txt"), vocab)
    lists: Lists = {}
    for path in sorted((ROBUST / "runs").glob("input.*.gz")):
        run = read_run(path)
        lists[run.tag] = {q: vocab.ids(t.docnos) for q, t in run.topics.items()}
    qrels = {q: (t.docids, t.grades) for q, t in judged.topics.items()}
    return lists, qrels


def classic(name: str, depth: int = 100) -> tuple[Lists, Qrels]:
    """The demo's seven systems over collection `name` (see the module docstring): the run
    files resources/demo/make_runs.py writes, read back (top `depth`)."""
    import contextlib
    import io
    import tempfile

    import make_runs as mr

    docs_file, queries_file, rels_file = CLASSIC[name]
    folder = SHARED / "collections" / name
    vocab = Vocabulary()
    judged = Judgments.from_qrels(read_qrels(folder / rels_file), vocab)
    qrels = {q: (t.docids, t.grades) for q, t in judged.topics.items()}
    lists: Lists = {}
    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
        for path in mr.make_runs(folder / docs_file, folder / queries_file, Path(tmp)):
            run = read_run(path)
            lists[run.tag] = {
                q: vocab.ids(t.docnos[:depth]) for q, t in run.topics.items() if q in qrels
            }
    return lists, qrels
