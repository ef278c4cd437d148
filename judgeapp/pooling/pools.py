"""Building pools from ranked lists: depth-k (TREC) and Take@N by best rank, RBP or RRF.

Everything here works on one topic at a time over numpy arrays: `run_lists` maps a run name
to its document ids in trec_eval order (rank 1 first). A pooled document records every run
that contributed it with the rank that run gave it, and its best rank over those runs.

Strategies (`strategy`, parameters in brackets):

- ``depth`` [depth]: every document some run ranks at `depth` or better (TREC's method).
- ``take`` [budget, depth]: the `budget` documents with the best rank over all runs, ties
  broken by more runs retrieving the document, then by document id.
- ``rbp`` [budget, p, depth]: the `budget` documents with the highest RBP weight summed over
  runs, ``sum_s (1-p) p^(rank_s - 1)``; ties by best rank, then document id.
- ``rrf`` [budget, k, depth]: reciprocal-rank fusion, ``sum_s 1 / (k + rank_s)``.

- ``sample`` [budget, depth, edges]: a stratified random sample of `budget` documents from
  the runs' top `depth` (default 1000), beside the documents judged already, each with its
  inclusion probability and stratum, for estimating the relevant documents still missing
  (see judgeapp.pooling.estimate).

For the Take@N strategies `depth` (optional) limits the candidates to each run's top `depth`;
a document's contributors are then every run that retrieved it within that limit.

A pool grows: `extend_topic` adds runs (or depth, or budget) to an existing topic pool and
never drops a document, so judgments, which are kept apart from pools, are never orphaned.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from judgeapp.pooling.candidates import (
    Candidates,
    PoolingError,
    PoolTopic,
    block_ranges,
    candidates,
    subset,
)

STRATEGIES = ("depth", "take", "rbp", "rrf", "sample")
DEFAULT_SAMPLE_DEPTH = 1000
DEFAULT_P = 0.8
DEFAULT_RRF_K = 60


def depth_pool(
    qid: str, runs: Sequence[str], run_lists: Sequence[np.ndarray], depth: int
) -> PoolTopic:
    """TREC depth-`depth` pool of one topic over `run_lists` (parallel to `runs`)."""
    if depth < 1:
        raise PoolingError(f"pool depth must be at least 1, not {depth}")
    e = candidates(run_lists, depth)
    return PoolTopic(
        qid,
        tuple(runs),
        e.doc_ids,
        e.best_rank,
        e.offsets,
        e.run_idx,
        e.ranks,
        np.ones(len(e.doc_ids)),
    )


def fusion_scores(
    entries_ranks: np.ndarray, strategy: str, p: float = DEFAULT_P, k: float = DEFAULT_RRF_K
) -> np.ndarray:
    """Per-entry contribution of a rank to a document's Take@N priority."""
    r = entries_ranks.astype(np.float64)
    if strategy == "rbp":
        return (1.0 - p) * np.power(p, r - 1.0)
    if strategy == "rrf":
        return 1.0 / (k + r)
    raise PoolingError(f"no fusion score for strategy {strategy!r}")


def take_order(e: Candidates, strategy: str, p: float, k: float) -> np.ndarray:
    """Positions of the candidate documents, most wanted first."""
    best = e.best_rank
    n_runs = np.diff(e.offsets)
    if strategy == "take":
        return np.lexsort((e.doc_ids, -n_runs, best))
    score = e.per_doc_sum(fusion_scores(e.ranks, strategy, p, k))
    return np.lexsort((e.doc_ids, best, -score))


def take_pool(
    qid: str,
    runs: Sequence[str],
    run_lists: Sequence[np.ndarray],
    budget: int,
    strategy: str = "take",
    *,
    p: float = DEFAULT_P,
    k: float = DEFAULT_RRF_K,
    depth: int | None = None,
    exclude: np.ndarray | None = None,
) -> PoolTopic:
    """Take@`budget` of one topic: the best `budget` candidates by `strategy`, skipping the
    documents in `exclude` (sorted ids; used when a pool grows)."""
    if budget < 0:
        raise PoolingError(f"pool budget must not be negative, not {budget}")
    if strategy == "rbp" and not 0.0 < p < 1.0:
        raise PoolingError(f"RBP persistence p must lie strictly between 0 and 1, not {p}")
    e = candidates(run_lists, depth)
    order = take_order(e, strategy, p, k)
    if exclude is not None and len(exclude):
        order = order[~np.isin(e.doc_ids[order], exclude)]
    chosen = np.sort(order[:budget])
    doc_ids, offsets, run_idx, ranks = subset(e, chosen)
    return PoolTopic(
        qid,
        tuple(runs),
        doc_ids,
        e.best_rank[chosen],
        offsets,
        run_idx,
        ranks,
        np.ones(len(doc_ids)),
    )


def normalise_params(strategy: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """Checked, complete parameters of a strategy (defaults filled in)."""
    if strategy not in STRATEGIES:
        raise PoolingError(
            f"unknown pooling strategy {strategy!r} (one of {', '.join(STRATEGIES)})"
        )
    out: dict[str, Any] = {}
    depth = params.get("depth")
    if strategy == "depth":
        if depth is None:
            raise PoolingError("depth pooling needs a depth")
        out["depth"] = int(depth)
        if out["depth"] < 1:
            raise PoolingError(f"pool depth must be at least 1, not {depth}")
        return out
    if params.get("budget") is None:
        raise PoolingError(f"{strategy} pooling needs a budget (documents per topic)")
    out["budget"] = int(params["budget"])
    if out["budget"] < 1:
        raise PoolingError(f"pool budget must be at least 1, not {params['budget']}")
    if depth is not None:
        out["depth"] = int(depth)
    if strategy == "rbp":
        out["p"] = float(params.get("p", DEFAULT_P))
        if not 0.0 < out["p"] < 1.0:
            raise PoolingError(
                f"RBP persistence p must lie strictly between 0 and 1, not {out['p']}"
            )
    if strategy == "rrf":
        out["k"] = float(params.get("k", DEFAULT_RRF_K))
    if strategy == "sample":
        from judgeapp.pooling.estimate import DEFAULT_EDGES

        out["depth"] = int(depth if depth is not None else DEFAULT_SAMPLE_DEPTH)
        out["edges"] = [int(e) for e in params.get("edges", DEFAULT_EDGES)]
        if out["edges"] != sorted(set(out["edges"])) or out["edges"][0] < 1:
            raise PoolingError(f"strata edges must be increasing ranks, not {out['edges']}")
    return out


def pool_topic(
    qid: str,
    runs: Sequence[str],
    run_lists: Sequence[np.ndarray],
    strategy: str,
    params: Mapping[str, Any],
    *,
    judged: np.ndarray | None = None,
    seed: int = 0,
) -> PoolTopic:
    """One topic's pool by `strategy` with `params` (see `normalise_params`). A ``sample``
    keeps the documents in `judged` and draws `budget` more with `seed`."""
    params = normalise_params(strategy, params)
    if strategy == "depth":
        return depth_pool(qid, runs, run_lists, params["depth"])
    if strategy == "sample":
        from judgeapp.pooling.estimate import sample_topic

        return sample_topic(
            qid,
            runs,
            run_lists,
            depth=params["depth"],
            size=params["budget"],
            judged=judged,
            edges=params["edges"],
            seed=topic_seed(seed, qid),
        )
    return _take_with(qid, runs, run_lists, strategy, params)


def _take_with(
    qid: str,
    runs: Sequence[str],
    run_lists: Sequence[np.ndarray],
    strategy: str,
    params: Mapping[str, Any],
    exclude: np.ndarray | None = None,
) -> PoolTopic:
    return take_pool(
        qid,
        runs,
        run_lists,
        params["budget"],
        strategy,
        p=params.get("p", DEFAULT_P),
        k=params.get("k", DEFAULT_RRF_K),
        depth=params.get("depth"),
        exclude=exclude,
    )


def build_pool(
    lists: Mapping[str, Mapping[str, tuple[np.ndarray, Any] | np.ndarray]],
    strategy: str,
    params: Mapping[str, Any],
    qids: Sequence[str] | None = None,
    progress: Callable[[int, int | None, str], None] | None = None,
    *,
    judged: Mapping[str, np.ndarray] | None = None,
    seed: int = 0,
) -> dict[str, PoolTopic]:
    """Pool every topic (or `qids`) of `lists` (run -> qid -> doc ids, or (doc ids, scores)
    as `store.runs.ranked_lists` gives them). A run without a topic contributes nothing.
    A ``sample`` takes each topic's judged doc ids from `judged` and a seed from `seed`."""
    runs = list(lists)
    topics = (
        sorted({q for t in lists.values() for q in t}, key=str.encode) if qids is None else qids
    )
    out: dict[str, PoolTopic] = {}
    for n, qid in enumerate(topics):
        if progress:
            progress(n, len(topics), f"topic {qid}")
        out[qid] = pool_topic(
            qid,
            runs,
            topic_lists(lists, qid),
            strategy,
            params,
            judged=None if judged is None else judged.get(qid),
            seed=seed,
        )
    if progress:
        progress(len(topics), len(topics), "pooled")
    return out


def topic_lists(lists: Mapping[str, Mapping[str, Any]], qid: str) -> list[np.ndarray]:
    """Each run's doc ids for `qid` (empty when the run lacks the topic), in run order."""
    out = []
    for topics in lists.values():
        item = topics.get(qid)
        if item is None:
            out.append(np.empty(0, np.int64))
        else:
            out.append(item[0] if isinstance(item, tuple) else item)
    return out


def extend_topic(
    old: PoolTopic,
    runs: Sequence[str],
    run_lists: Sequence[np.ndarray],
    strategy: str,
    params: Mapping[str, Any],
) -> PoolTopic:
    """The pool of `old`'s topic after the pool's runs became `runs` (a superset of
    `old.runs`, lists parallel to it) under `params` (a depth never smaller than before;
    for Take@N strategies `budget` is how many new documents to add). Documents already
    pooled stay, with their contributors recomputed over all runs."""
    if strategy == "sample":
        raise PoolingError("a sample cannot grow (its inclusion probabilities would be lost)")
    params = normalise_params(strategy, params)
    missing = [r for r in old.runs if r not in runs]
    if missing:
        raise PoolingError(f"a pool cannot lose a run ({missing[0]!r})")
    depth: int | None = params.get("depth")
    if strategy == "depth":
        new = depth_pool(old.qid, runs, run_lists, params["depth"])
    else:
        new = _take_with(old.qid, runs, run_lists, strategy, params, exclude=old.doc_ids)
    # contributors of the documents already pooled, over every run now in the pool
    e = candidates(run_lists, depth)
    keep_old = old.doc_ids
    pos = np.searchsorted(e.doc_ids, keep_old)
    pos_clipped = np.minimum(pos, max(len(e.doc_ids) - 1, 0))
    found = (
        (pos < len(e.doc_ids)) & (e.doc_ids[pos_clipped] == keep_old)
        if len(e.doc_ids)
        else (np.zeros(len(keep_old), bool))
    )
    parts = [new]
    if found.any():
        chosen = pos[found]
        doc_ids, offsets, run_idx, ranks = subset(e, chosen)
        parts.append(
            PoolTopic(
                old.qid,
                tuple(runs),
                doc_ids,
                e.best_rank[chosen],
                offsets,
                run_idx,
                ranks,
                old.inclusion_prob[found],
            )
        )
    if (~found).any():
        # pooled before but retrieved by no current list within the depth: keep as it was
        remap = np.array([runs.index(r) for r in old.runs], np.int32)
        lost = np.flatnonzero(~found)
        idx = block_ranges(old.offsets[lost], np.diff(old.offsets)[lost])
        parts.append(
            PoolTopic(
                old.qid,
                tuple(runs),
                old.doc_ids[lost],
                old.best_rank[lost],
                np.r_[0, np.cumsum(np.diff(old.offsets)[lost])].astype(np.int64),
                remap[old.run_idx[idx]] if len(idx) else np.empty(0, np.int32),
                old.ranks[idx],
                old.inclusion_prob[lost],
            )
        )
    return merge_topics(parts)


def merge_topics(parts: Sequence[PoolTopic]) -> PoolTopic:
    """Union of disjoint topic pools over the same runs, sorted by document id; where a
    document occurs in several parts the first part wins."""
    first = parts[0]
    doc_ids = np.concatenate([p.doc_ids for p in parts])
    _, pick = np.unique(doc_ids, return_index=True)  # first occurrence in part order
    src_part = np.concatenate([np.full(len(p), i) for i, p in enumerate(parts)])[pick]
    src_pos = np.concatenate([np.arange(len(p)) for p in parts])[pick]
    counts = np.concatenate([p.n_runs for p in parts])[pick]
    offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
    run_idx = np.empty(offsets[-1], np.int32)
    ranks = np.empty(offsets[-1], np.int32)
    for i, part in enumerate(parts):
        sel = np.flatnonzero(src_part == i)
        if not len(sel):
            continue
        where = block_ranges(offsets[sel], counts[sel])
        source = block_ranges(part.offsets[src_pos[sel]], counts[sel])
        run_idx[where] = part.run_idx[source]
        ranks[where] = part.ranks[source]

    def gather(field: str) -> np.ndarray:
        return np.concatenate([getattr(p, field) for p in parts])[pick]

    return PoolTopic(
        first.qid,
        first.runs,
        gather("doc_ids"),
        gather("best_rank"),
        offsets,
        run_idx,
        ranks,
        gather("inclusion_prob"),
    )


def topic_seed(seed: int, qid: str) -> int:
    """A per-topic seed from a pool's seed, stable across runs and platforms."""
    return (int(seed) * 1_000_003 + zlib.crc32(qid.encode())) % (2**63)
