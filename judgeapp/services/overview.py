"""A project at a glance: counts per topic and the gaps between topics, runs, judgments and
documents (what `info` prints)."""

from __future__ import annotations

import numpy as np

from judgeapp.records import ProjectInfo, TopicCounts
from judgeapp.services.policy import DEFAULT_POLICY, JudgmentPolicy, effective_judgments
from judgeapp.store import Store


def project_info(
    store: Store, policy: JudgmentPolicy = DEFAULT_POLICY, relevant_from: int = 1
) -> ProjectInfo:
    """Counts per topic (judged and relevant by `policy`'s effective judgments, relevant
    meaning a grade of at least `relevant_from`) and the project's gaps."""
    lists = store.runs.ranked_lists()
    judged = effective_judgments(store, policy=policy)
    totals = store.totals()
    titles = store.topics.titles()
    with_text = store.documents.ids_with_text()
    run_qids: dict[str, int] = {}
    retrieved: dict[str, set[int]] = {}
    for topics in lists.runs.values():
        for qid, (ids, _) in topics.items():
            run_qids[qid] = run_qids.get(qid, 0) + 1
            retrieved.setdefault(qid, set()).update(ids.tolist())
    per_topic = []
    for qid in sorted(set(titles) | set(run_qids) | set(judged.topics), key=str.encode):
        ids, grades = judged.topics.get(qid, (np.empty(0), np.empty(0)))
        per_topic.append(
            TopicCounts(
                qid=qid,
                title=titles.get(qid),
                runs=run_qids.get(qid, 0),
                retrieved=len(retrieved.get(qid, ())),
                judged=len(ids),
                relevant=int((grades >= relevant_from).sum()),
            )
        )
    all_retrieved = (
        np.unique(np.concatenate([ids for t in lists.runs.values() for ids, _ in t.values()]))
        if lists.n_entries
        else np.empty(0, dtype=np.int64)
    )
    all_judged = (
        np.unique(np.concatenate([ids for ids, _ in judged.topics.values()]))
        if len(judged)
        else np.empty(0, dtype=np.int64)
    )
    return ProjectInfo(
        topics=len(titles),
        documents=totals["documents"],
        docnos=totals["docnos"],
        runs=len(lists.runs),
        ranked_entries=lists.n_entries,
        assessors=totals["assessors"],
        judgments=totals["judgments"],
        pools=totals["pools"],
        per_topic=per_topic,
        run_topics_missing=[q for q in sorted(run_qids, key=str.encode) if q not in titles],
        judged_topics_missing=[q for q in sorted(judged.topics, key=str.encode) if q not in titles],
        topics_without_runs=[q for q in sorted(titles, key=str.encode) if q not in run_qids],
        topics_without_judgments=[
            q for q in sorted(titles, key=str.encode) if q not in judged.topics
        ],
        retrieved_docs_without_text=int(np.count_nonzero(~np.isin(all_retrieved, with_text))),
        judged_docs_without_text=int(np.count_nonzero(~np.isin(all_judged, with_text))),
    )
