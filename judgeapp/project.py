"""A project from Python, as pandas DataFrames: ``judgeapp.open("collection.judgeapp")``.

::

    with judgeapp.open("robust.judgeapp") as project:
        project.topics()                       # query_id, title, description, narrative
        project.runs()                         # name, tag, topics, entries
        project.run("bm25")                    # query_id, doc_id, score, rank (ir_measures' columns)
        project.qrels(policy="majority")       # query_id, doc_id, relevance
        project.evaluate(["AP", "nDCG@10"])    # run, measure, value
        project.evaluate(["AP"], per_topic=True)   # run, query_id, measure, value
        project.inferred()                     # run, measure, value: xinfAP, infNDCG, statAP

Judgments are the effective ones under a policy (``newest`` by default, see
:mod:`judgeapp.services.policy`), optionally among some assessors. Evaluation goes through
the same engine as ``evaluate --db`` (trec_eval 10.0 values, ``version=9`` for 9.x), with the
:mod:`judgeapp.api` topic rules (``topics="qrels"`` by default). The project is opened
read-only in spirit: nothing here writes. pandas is imported here only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from judgeapp.api import Topics, _options, measures_of
from judgeapp.measures import Evaluator, Judgments


class Project:
    """One open project; close it (or use ``with``) when done."""

    def __init__(self, db: str | Path) -> None:
        from judgeapp.store import Store

        self.store = Store.open(db, create=False)

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.store.close()

    # -- tables ----------------------------------------------------------------------------
    def topics(self):
        import pandas as pd

        rows = [
            (t.qid, t.title, t.description, t.narrative, t.fields) for t in self.store.topics.all()
        ]
        return pd.DataFrame(
            rows, columns=["query_id", "title", "description", "narrative", "fields"]
        )

    def runs(self):
        import pandas as pd

        rows = [(r.name, r.tag, r.n_topics, r.n_entries) for r in self.store.runs.all()]
        return pd.DataFrame(rows, columns=["name", "tag", "topics", "entries"])

    def run(self, name: str):
        """One run in trec_eval order: query_id, doc_id, score, rank (1-based)."""
        import pandas as pd

        lists = self.store.runs.ranked_lists([name]).runs[name]
        qids, ids, scores, ranks = [], [], [], []
        for qid in sorted(lists, key=lambda q: q.encode("utf-8", "surrogateescape")):
            doc_ids, sc = lists[qid]
            qids.extend([qid] * len(doc_ids))
            ids.append(np.asarray(doc_ids, dtype=np.int64))
            scores.append(np.asarray(sc, dtype=np.float64))
            ranks.append(np.arange(1, len(doc_ids) + 1))
        all_ids = np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64)
        names = self.store.documents.docnos_of(np.unique(all_ids).tolist())
        return pd.DataFrame(
            {
                "query_id": qids,
                "doc_id": [names[i] for i in all_ids.tolist()],
                "score": np.concatenate(scores) if scores else np.zeros(0),
                "rank": np.concatenate(ranks) if ranks else np.zeros(0, dtype=np.int64),
            }
        )

    def qrels(self, policy: str = "newest", assessors: Sequence[str] | None = None):
        """The effective judgments: query_id, doc_id, relevance (qid then docno order)."""
        import pandas as pd

        from judgeapp.services.policy import parse_policy, qrels_rows

        rows = qrels_rows(self.store, assessors, parse_policy(policy))
        return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])

    def judgments(self, assessors: Sequence[str] | None = None):
        """Every stored judgment (not only the effective ones), with who made it and when."""
        import pandas as pd

        recs = self.store.judgments.all(assessors=assessors)
        return pd.DataFrame(
            [
                (j.qid, j.docno, j.assessor, j.grade, j.note, j.flagged, j.time_spent, j.updated_at)
                for j in recs
            ],
            columns=[
                "query_id",
                "doc_id",
                "assessor",
                "relevance",
                "note",
                "flagged",
                "time_spent",
                "updated_at",
            ],
        )

    # -- evaluation ------------------------------------------------------------------------
    def evaluate(
        self,
        measures: Iterable[object] | object = ("AP", "nDCG@10", "P@10"),
        *,
        runs: Sequence[str] | None = None,
        policy: str = "newest",
        assessors: Sequence[str] | None = None,
        per_topic: bool = False,
        version: int = 10,
        topics: Topics = "qrels",
        **options: Any,
    ):
        """Every chosen run against the effective judgments: one row per (run, measure),
        or per (run, query_id, measure) with ``per_topic``."""
        import pandas as pd

        from judgeapp.services.evaluation import judgments_from_store, runs_from_store
        from judgeapp.services.policy import parse_policy

        judgments: Judgments = judgments_from_store(self.store, assessors, parse_policy(policy))
        engine_runs = runs_from_store(self.store.runs, runs)
        opts = _options(
            topics,
            version,
            options.pop("relevance_level", 1),
            options.pop("judged_only", False),
            options.pop("max_docs", None),
            options.pop("num_docs", 0),
        )
        if options:
            raise TypeError(f"unknown option(s): {', '.join(options)}")
        ms = [m for m in measures_of(measures, version) if m.aggregate != "text"]
        res = Evaluator(judgments, engine_runs, ms, opts).evaluate()
        if not per_topic:
            summ = res.summary()
            rows = [
                (run, str(m), float(summ[i, r]))
                for r, run in enumerate(res.run_names)
                for i, m in enumerate(res.measures)
            ]
            return pd.DataFrame(rows, columns=["run", "measure", "value"])
        topic_rows: list[tuple[str, str, str, float]] = []
        for r, run in enumerate(res.run_names):
            for t, qid in enumerate(res.qids):
                if not res.evaluated[r, t] and topics != "qrels":
                    continue
                for i, m in enumerate(res.measures):
                    if m.info.per_topic:
                        v = res.values[i, r, t] if res.evaluated[r, t] else 0.0
                        topic_rows.append((run, qid, str(m), float(v)))
        return pd.DataFrame(topic_rows, columns=["run", "query_id", "measure", "value"])

    def inferred(
        self,
        pool: str | None = None,
        *,
        runs: Sequence[str] | None = None,
        policy: str = "newest",
        assessors: Sequence[str] | None = None,
        per_topic: bool = False,
        relevance_level: int = 1,
    ):
        """xinfAP, infNDCG and statAP of every chosen run, estimated from the judged
        documents of the sample pool `pool` (the project's only one by default), as
        ``evaluate --db --inferred`` prints them: one row per (run, measure), the mean over
        the topics the run has, or per (run, query_id, measure) with ``per_topic``."""
        import pandas as pd

        from judgeapp.services.inferred import project_inferred
        from judgeapp.services.policy import parse_policy

        found = project_inferred(
            self.store,
            pool,
            runs=runs,
            assessors=assessors,
            policy=parse_policy(policy),
            level=relevance_level,
        )
        if not per_topic:
            summ = found.summary()
            rows = [
                (run, m, float(summ[i, r]))
                for r, run in enumerate(found.run_names)
                for i, m in enumerate(found.measures)
            ]
            return pd.DataFrame(rows, columns=["run", "measure", "value"])
        topic_rows = [
            (run, qid, m, float(found.values[i, r, t]))
            for r, run in enumerate(found.run_names)
            for t, qid in enumerate(found.qids)
            for i, m in enumerate(found.measures)
            if not np.isnan(found.values[i, r, t])
        ]
        return pd.DataFrame(topic_rows, columns=["run", "query_id", "measure", "value"])


def open_project(db: str | Path) -> Project:
    """Open a project (a file path or an SQLAlchemy URL) for reading as DataFrames."""
    return Project(db)
