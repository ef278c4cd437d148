"""Evaluation inputs from a project: the store's arrays turned into the engine's records,
without going through docno strings (both sides use the store's dense document ids)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from judgeapp.measures import Judgments, Run
from judgeapp.services.policy import DEFAULT_POLICY, JudgmentPolicy, effective_judgments
from judgeapp.store import Store, StoreError
from judgeapp.store.runs import Runs


def runs_from_store(stored: Runs, runs: Sequence[str] | None = None) -> list[Run]:
    """The chosen runs (all, in import order, by default) of a project's runs
    (`store.runs`) as engine runs. The stored lists are already validated and in trec_eval
    order, so they are used as they are."""
    lists = stored.ranked_lists(runs)  # names, tags and lists in one read: a run
    return [  # imported meanwhile by another writer is in all three or in none
        Run(name, {qid: ids for qid, (ids, _scores) in topics.items()}, lists.tags[name])
        for name, topics in lists.runs.items()
    ]


def judgments_from_store(
    store: Store,
    assessors: Sequence[str] | None = None,
    policy: JudgmentPolicy = DEFAULT_POLICY,
) -> Judgments:
    """Effective judgments (by `policy`, among `assessors`, all by default) as engine
    judgments."""
    arrays = effective_judgments(store, assessors, policy=policy)
    return Judgments.from_arrays(arrays.topics)


def load_for_evaluation(
    db: str | Path | Store,
    runs: Sequence[str] | None = None,
    assessor: str | Sequence[str] | None = None,
    policy: JudgmentPolicy = DEFAULT_POLICY,
) -> tuple[Judgments, list[Run]]:
    """(judgments, runs) of a project, for `evaluate --db` and the dashboard."""
    assessors = [assessor] if isinstance(assessor, str) else assessor
    store = db if isinstance(db, Store) else Store.open(db, create=False)
    try:
        judgments = judgments_from_store(store, assessors, policy)
        if not len(judgments):
            who = f" by {', '.join(assessors)}" if assessors else ""
            raise StoreError(f"the project has no judgments{who} to evaluate against")
        return judgments, runs_from_store(store.runs, runs)
    finally:
        if store is not db:
            store.close()
