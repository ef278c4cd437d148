"""trec_eval's preference measures (``prefs_*``), its judgment-group measures (``map_avgjg``,
``P_avgjg``, ``Rprec_mult_avgjg``) and ``yaap``, each registered once with its kernel.

Definitions read from trec_eval 10.0 (form_prefs_counts.c, m_prefs_*.c, form_res_rels_jg.c,
m_*_avgjg.c, m_yaap.c), not translated:

- Each judgment group (JG) of a topic states preferences between documents: with one
  sub-group (JSG) every document of a higher rel_level is preferred to every document of
  a lower one (equivalence classes, ECs); with several JSGs each JSG does so among its own
  documents and the JG's preferences are their transitive closure.
- Against a ranking, the judged documents the run retrieves get ranks 0..NJR-1 in run
  order, the others NJR.. in docno order. A preference a > b is *fulfilled* when a is
  ranked above b; it is of kind *ret* when both are retrieved, *imp* (implied) when one
  is, *notoccur* when neither is (never fulfilled).
- prefs_simp / _ret / _imp: fulfilled over possible, over all kinds / ret only / ret+imp;
  prefs_pair*: the same per document pair, averaged over pairs (a pair preferred both ways
  by different JGs counts its share); prefs_avgjg*: the ratio per JG, averaged over JGs;
  prefs_avgjg_Rnonrel*: as avgjg with each JG's non-relevant documents (rel_level 0)
  counted as if there were as many as relevant ones; prefs_num_prefs_*: counts.
- With ``-R qrels_jg`` every JG is a separate set of qrels: map_avgjg, P_avgjg_k and
  Rprec_mult_avgjg_x are map, P_k and Rprec_mult_x per JG, averaged over the JGs.
- yaap (Robertson 2012): log((1 + S) / (1 + R - S)), S the sum of precision at each
  relevant retrieved document.

Judgments read with ``-R prefs`` or ``-R qrels_prefs`` carry the preferences; read as plain
qrels, each topic is one JG with one JSG whose rel_levels are the grades (trec_eval's
``-R qrels_prefs`` with a constant second column). Likewise plain qrels are one JG each for
the avgjg measures.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from judgeapp.measures.batch import (
    NONPOOL,
    UNJUDGED,
    BatchView,
    Kernel,
    KernelContext,
    MeasureArgs,
    TopicStats,
    for_each,
    safe_div,
)
from judgeapp.measures.data import ABSENT, GroupJudgments, PrefJudgments
from judgeapp.measures.families.ap import k_ap
from judgeapp.measures.families.precision import k_p, k_rprec_mult
from judgeapp.measures.family import EvaluationError, Family
from judgeapp.measures.spec import Registrations, TrecSpec

REGISTRATIONS = Registrations()

# -- the preferences of one topic, independent of runs --------------------------------------


@dataclass(slots=True)
class Group:
    """One JG in document space (indices into the topic's judged documents)."""

    a: np.ndarray  # preference pairs a > b
    b: np.ndarray
    rel: np.ndarray  # the JG's relevant documents (rel_level > 0)
    nonrel: np.ndarray  # its non-relevant ones (EC mode: every level <= 0; PA: == 0)
    ecs: list[np.ndarray] | None  # EC mode: documents per EC, highest level first
    matrix: np.ndarray | None = None  # PA mode: closed preference matrix
    level: np.ndarray | None = None  # PA mode: rel_level per document (-1: not in the JG)


@dataclass(slots=True)
class TopicPrefs:
    n_docs: int
    docno_rank: np.ndarray
    groups: list[Group]
    pair_u: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    pair_v: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    count_uv: np.ndarray = field(default_factory=lambda: np.zeros(0))  # JGs preferring u
    count_vu: np.ndarray = field(default_factory=lambda: np.zeros(0))


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _closure(m: np.ndarray) -> np.ndarray:
    """Reflexive-transitive closure of a boolean matrix, diagonal cleared after."""
    out = m.copy()
    np.fill_diagonal(out, True)
    for k in range(out.shape[0]):
        out |= out[:, k : k + 1] & out[k : k + 1, :]
    np.fill_diagonal(out, False)
    return out


def topic_prefs(p: PrefJudgments, qid: str) -> TopicPrefs:
    n = p.docno_rank.size
    groups: list[Group] = []
    pc = np.zeros((n, n), dtype=np.int64)
    by_jg: dict[str, list[int]] = {}
    for i, jg in enumerate(p.jg):
        by_jg.setdefault(jg, []).append(i)
    for jg in sorted(by_jg, key=_bytes):
        lines = np.array(by_jg[jg], dtype=np.int64)
        jsgs = sorted({p.jsg[i] for i in lines}, key=_bytes)
        if len(jsgs) == 1:
            levels = p.rel_level[lines]
            docs = p.doc[lines]
            ecs = [docs[levels == lv] for lv in np.unique(levels)[::-1]]
            pairs_a, pairs_b = [], []
            for e, docs_e in enumerate(ecs):
                lower = np.concatenate(ecs[e + 1 :]) if e + 1 < len(ecs) else np.zeros(0, np.int64)
                if np.intersect1d(docs_e, lower).size:
                    raise EvaluationError(
                        f"topic {qid}: a document has two rel_levels in judgment group {jg}"
                    )
                pairs_a.append(np.repeat(docs_e, lower.size))
                pairs_b.append(np.tile(lower, docs_e.size))
            a = np.concatenate(pairs_a) if pairs_a else np.zeros(0, np.int64)
            b = np.concatenate(pairs_b) if pairs_b else np.zeros(0, np.int64)
            rel_docs = docs[levels > 0]
            non_docs = docs[levels <= 0]
            groups.append(Group(a, b, rel_docs, non_docs, ecs))
        else:
            level = np.full(n, -1.0)
            m = np.zeros((n, n), dtype=bool)
            for jsg in jsgs:
                sub = lines[np.array([p.jsg[i] == jsg for i in lines])]
                docs, levels = p.doc[sub], p.rel_level[sub]
                clash = ((level[docs] > 0) & (levels == 0)) | ((level[docs] == 0) & (levels > 0))
                if clash.any():
                    raise EvaluationError(
                        f"topic {qid}: a document is both relevant and not in judgment group {jg}"
                    )
                level[docs] = levels
                higher = levels[:, None] > levels[None, :]
                m[np.ix_(docs, docs)] |= higher
            m = _closure(m)
            if (m & m.T).any():
                raise EvaluationError(f"topic {qid}: inconsistent preferences in group {jg}")
            a, b = np.nonzero(m)
            groups.append(
                Group(a, b, np.flatnonzero(level > 0), np.flatnonzero(level == 0), None, m, level)
            )
        np.add.at(pc, (groups[-1].a, groups[-1].b), 1)
    u, v = np.nonzero(np.triu(pc + pc.T, 1))
    return TopicPrefs(n, p.docno_rank, groups, u, v, pc[u, v].astype(float), pc[v, u].astype(float))


def grade_prefs(grades: np.ndarray) -> PrefJudgments:
    """A topic's plain qrels as preferences: one JG, one JSG, rel_level = grade."""
    n = grades.size
    return PrefJudgments(
        ["0"] * n, ["0"] * n, np.arange(n), grades.astype(np.float64), np.arange(n)
    )


# -- against a ranking ----------------------------------------------------------------------


@dataclass(slots=True)
class Counts:
    """Per JG (arrays over the topic's JGs)."""

    ful_ret: np.ndarray
    poss_ret: np.ndarray
    ful_imp: np.ndarray
    poss_imp: np.ndarray
    notoccur: np.ndarray
    rel: np.ndarray
    nonrel: np.ndarray
    rel_ret: np.ndarray
    nonrel_ret: np.ndarray


def ranks(tp: TopicPrefs, retrieved: np.ndarray) -> tuple[np.ndarray, int]:
    """Rank of each judged document for this ranking (``retrieved``: judged documents in
    run order) and NJR."""
    rank = np.empty(tp.n_docs, dtype=np.int64)
    njr = retrieved.size
    rank[retrieved] = np.arange(njr)
    rest = np.ones(tp.n_docs, dtype=bool)
    rest[retrieved] = False
    others = np.flatnonzero(rest)
    rank[others[np.argsort(tp.docno_rank[others], kind="stable")]] = njr + np.arange(others.size)
    return rank, njr


def counts(tp: TopicPrefs, rank: np.ndarray, njr: int) -> Counts:
    k = len(tp.groups)
    c = Counts(*(np.zeros(k) for _ in range(9)))
    for g, grp in enumerate(tp.groups):
        ra, rb = rank[grp.a], rank[grp.b]
        a_ret, b_ret = ra < njr, rb < njr
        first = ra < rb
        c.ful_ret[g] = np.count_nonzero(first & b_ret)
        c.ful_imp[g] = np.count_nonzero(first & ~b_ret & a_ret)
        c.poss_ret[g] = np.count_nonzero(~first & a_ret) + c.ful_ret[g]
        c.poss_imp[g] = np.count_nonzero(~first & ~a_ret & b_ret) + c.ful_imp[g]
        c.notoccur[g] = np.count_nonzero(~a_ret & ~b_ret)
        c.rel[g], c.nonrel[g] = grp.rel.size, grp.nonrel.size
        c.rel_ret[g] = np.count_nonzero(rank[grp.rel] < njr)
        c.nonrel_ret[g] = np.count_nonzero(rank[grp.nonrel] < njr)
    return c


def _pair_value(tp: TopicPrefs, rank: np.ndarray, njr: int, kinds: str) -> float:
    """prefs_pair (kinds 'all'), _ret ('ret'), _imp ('imp')."""
    ru, rv = rank[tp.pair_u], rank[tp.pair_v]
    u_first = ru < rv
    first_count = np.where(u_first, tp.count_uv, tp.count_vu)
    share = first_count / (tp.count_uv + tp.count_vu)
    top, low = np.minimum(ru, rv), np.maximum(ru, rv)
    both = low < njr
    one = (top < njr) & ~both
    counted = both if kinds == "ret" else both | one
    n_pairs = int(np.count_nonzero(counted)) if kinds != "all" else int(tp.pair_u.size)
    total = float(share[counted].sum())
    return total / n_pairs if n_pairs else 0.0


def _rnonrel(tp: TopicPrefs, c: Counts, rank: np.ndarray, njr: int, ret: bool) -> float:
    total = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        for g, grp in enumerate(tp.groups):
            r = c.rel_ret[g] if ret else c.rel[g]
            n = c.nonrel_ret[g] if ret else c.nonrel[g]
            if r >= n:
                ful = c.ful_ret[g] + (0 if ret else c.ful_imp[g]) + c.rel_ret[g] * (r - n)
                poss = c.poss_ret[g] + (0 if ret else c.poss_imp[g] + c.notoccur[g])
                poss += c.rel[g] * (r - n)
                total += float(np.float64(ful) / np.float64(poss))
                continue
            ful, poss = _recount(
                grp, rank, njr, int(c.rel_ret[g] if ret else c.rel[g]), int(c.rel[g]), ret
            )
            total += float(np.float64(ful) / np.float64(poss))
    return total / len(tp.groups) if total > 0.0 else 0.0


def _recount(
    grp: Group, rank: np.ndarray, njr: int, keep: int, num_rel: int, ret: bool
) -> tuple[int, int]:
    """m_prefs_avgjg_Rnonrel*.c's recount with only the first non-relevant documents."""
    if grp.ecs is not None:
        ecs = [np.sort(rank[docs]) for docs in grp.ecs]
        if ret:
            ecs = [e[e < njr] for e in ecs]
        kept = ecs[-1][:keep]
        ful = poss = 0
        for e1 in range(len(ecs)):
            for e2 in [*range(e1 + 1, len(ecs) - 1), -1]:
                other = kept if e2 == -1 else ecs[e2]
                x, y = ecs[e1][:, None], other[None, :]
                good = (x < y) & (x < njr)
                ful += int(np.count_nonzero(good))
                poss += int(good.size - np.count_nonzero(good))
        return ful, poss + ful
    assert grp.matrix is not None and grp.level is not None
    order = np.argsort(rank)  # document at each rank
    level = grp.level[order]
    limit = njr if ret else order.size
    nonrel_at = np.flatnonzero(level[:limit] == 0.0)
    first_discarded = nonrel_at[num_rel] if nonrel_at.size > num_rel else limit
    drop = (np.arange(order.size) >= first_discarded) & (level == 0.0)
    m = grp.matrix[np.ix_(order, order)] & ~drop[:, None] & ~drop[None, :]
    i, j = np.nonzero(m)
    if ret:
        inside = (i < njr) & (j < njr)
        i, j = i[inside], j[inside]
    ful = int(np.count_nonzero((i < njr) & (j > i)))
    poss = int(i.size - ful)
    return ful, poss + ful


# -- kernels --------------------------------------------------------------------------------

PREFS = (
    ("prefs_num_prefs_poss", "Preferences possible, retrieved or not (summed over topics)", "sum"),
    ("prefs_num_prefs_ful", "Preferences fulfilled, implied ones included (summed)", "sum"),
    ("prefs_num_prefs_ful_ret", "Preferences fulfilled among retrieved documents (summed)", "sum"),
    ("prefs_simp", "Preferences fulfilled over possible", "mean"),
    ("prefs_pair", "Preference ratio per document pair, averaged over pairs", "mean"),
    ("prefs_avgjg", "Preferences fulfilled over possible per judgment group, averaged", "mean"),
    (
        "prefs_avgjg_Rnonrel",
        "prefs_avgjg with as many non-relevant documents per group as relevant ones",
        "mean",
    ),
    ("prefs_simp_ret", "prefs_simp among retrieved documents", "mean"),
    ("prefs_pair_ret", "prefs_pair among retrieved documents", "mean"),
    ("prefs_avgjg_ret", "prefs_avgjg among retrieved documents", "mean"),
    ("prefs_avgjg_Rnonrel_ret", "prefs_avgjg_Rnonrel among retrieved documents", "mean"),
    ("prefs_simp_imp", "prefs_simp over pairs with a retrieved document", "mean"),
    ("prefs_pair_imp", "prefs_pair over pairs with a retrieved document", "mean"),
    ("prefs_avgjg_imp", "prefs_avgjg over pairs with a retrieved document", "mean"),
)


def _value(name: str, tp: TopicPrefs, rank: np.ndarray, njr: int) -> float:
    c = counts(tp, rank, njr)
    ful_all = c.ful_ret + c.ful_imp
    poss_all = c.poss_ret + c.poss_imp + c.notoccur
    if name == "prefs_num_prefs_poss":
        return float(poss_all.sum())
    if name == "prefs_num_prefs_ful":
        return float(ful_all.sum())
    if name == "prefs_num_prefs_ful_ret":
        return float(c.ful_ret.sum())
    kind = "ret" if name.endswith("_ret") else "imp" if name.endswith("_imp") else "all"
    if name.startswith("prefs_pair"):
        return _pair_value(tp, rank, njr, kind)
    if name.startswith("prefs_avgjg_Rnonrel"):
        return _rnonrel(tp, c, rank, njr, kind == "ret")
    ful = {"all": ful_all, "ret": c.ful_ret, "imp": ful_all}[kind]
    poss = {"all": poss_all, "ret": c.poss_ret, "imp": c.poss_ret + c.poss_imp}[kind]
    if name.startswith("prefs_simp"):
        return float(ful.sum() / poss.sum()) if poss.sum() else 0.0
    ratio = np.where(poss > 0, safe_div(ful, poss), 0.0)
    total = 0.0
    for x in ratio.tolist():  # in JG order, as trec_eval adds
        total += x
    return total / len(tp.groups) if total > 0.0 else 0.0


def _rows(v: BatchView, ctx: KernelContext) -> Iterator[tuple[TopicPrefs, int, np.ndarray]]:
    """(topic prefs, rows, retrieved judged documents per row) per topic of the batch."""
    assert ctx.judged_index is not None
    index = ctx.judged_index()
    n_runs = v.n_rows // max(len(ctx.qids), 1)
    for t, qid in enumerate(ctx.qids):
        p = ctx.judgments.prefs.get(qid) if ctx.judgments is not None else None
        if p is None:
            p = grade_prefs(ctx.judgments.topics[qid].grades)
        tp = topic_prefs(p, qid)
        for r in range(t * n_runs, (t + 1) * n_runs):
            row = index[r, : v.num_ret[r]]
            yield tp, r, row[row >= 0]


def k_prefs(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    out = np.zeros((len(ms), v.n_rows))
    for tp, r, retrieved in _rows(v, ctx):
        rank, njr = ranks(tp, retrieved)
        for i, m in enumerate(ms):
            out[i, r] = _value(m.family, tp, rank, njr)
    return out


for _order, (_name, _desc, _agg) in enumerate(PREFS, start=36):
    REGISTRATIONS.add(
        Family(
            _name,
            _desc + " (trec_eval's preference measure; -R prefs or qrels_prefs).",
            "sum" if _agg == "sum" else "mean",
            at=None,
            params=(),
            integer=_agg == "sum",
        ),
        trec=[
            TrecSpec(
                _name,
                _order,
                nicknames=("all_prefs", "prefs") if _order <= 41 else ("all_prefs",),
            )
        ],
    )(k_prefs)


# -- judgment groups (-R qrels_jg) ------------------------------------------------------------


def _group_grades(ctx: KernelContext, qid: str) -> GroupJudgments:
    found: GroupJudgments | None = ctx.judgments.groups.get(qid)
    if found is None:
        grades = ctx.judgments.topics[qid].grades
        return GroupJudgments(("0",), grades[:, None])
    return found


def _per_group(
    v: BatchView,
    ms: Sequence[MeasureArgs],
    ctx: KernelContext,
    kernel: Kernel,
) -> np.ndarray:
    """The plain measure per judgment group, averaged over the groups (trec_eval divides
    the sum by the number of groups when there is more than one). The plain kernels (AP,
    P, Rprec_mult) read only the @ value of the measures they are given."""
    assert ctx.judged_index is not None
    index = ctx.judged_index()
    n_runs = v.n_rows // max(len(ctx.qids), 1)
    out = np.zeros((len(ms), v.n_rows))
    for t, qid in enumerate(ctx.qids):
        groups = _group_grades(ctx, qid)
        rows = slice(t * n_runs, (t + 1) * n_runs)
        idx = index[rows]
        total = np.zeros((len(ms), n_runs))
        for g in range(len(groups.names)):
            grades = groups.grades[:, g]
            code_of = np.where(grades == ABSENT, NONPOOL, np.where(grades < 0, UNJUDGED, grades))
            codes = np.where(idx >= 0, code_of[np.maximum(idx, 0)], NONPOOL)
            codes[np.arange(idx.shape[1])[None, :] >= v.num_ret[rows][:, None]] = -3
            judged = grades[grades != ABSENT]
            stats = [TopicStats(judged[judged >= 0], int(judged.size))]
            view = BatchView(
                codes.astype(np.int32),
                v.num_ret[rows],
                np.zeros(n_runs, dtype=np.int64),
                stats,
                v.level,
                False,
            )
            total += kernel(view, ms, ctx)
        if len(groups.names) > 1:
            total /= len(groups.names)
        out[:, rows] = total
    return out


@REGISTRATIONS.add(
    Family(
        "map_avgjg",
        "map per judgment group, averaged over the groups (-R qrels_jg).",
        at=None,
        params=(),
    ),
    trec=[TrecSpec("map_avgjg", 50, nicknames=("qrels_jg",))],
)
def k_map_avgjg(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    return _per_group(v, ms, ctx, k_ap)


@REGISTRATIONS.add(
    Family(
        "P_avgjg",
        "P@k per judgment group, averaged over the groups (-R qrels_jg).",
        at_required=True,
        params=(),
    ),
    trec=[
        TrecSpec(
            "P_avgjg", 51, "long", (5, 10, 15, 20, 30, 100, 200, 500, 1000), nicknames=("qrels_jg",)
        )
    ],
)
def k_p_avgjg(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    return _per_group(v, ms, ctx, k_p)


@REGISTRATIONS.add(
    Family(
        "Rprec_mult_avgjg",
        "Rprec_mult per judgment group, averaged over the groups (-R qrels_jg).",
        at="cutoff",
        at_kind=float,
        at_required=True,
        params=(),
    ),
    trec=[
        TrecSpec(
            "Rprec_mult_avgjg",
            52,
            "double",
            (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
            nicknames=("qrels_jg",),
        )
    ],
)
def k_rprec_mult_avgjg(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    return _per_group(v, ms, ctx, k_rprec_mult)


@REGISTRATIONS.add(
    Family(
        "yaap",
        "Yet another average precision (Robertson 2012): log((1 + S) / (1 + R - S)), S the "
        "sum of the precision at each relevant retrieved document.",
        at=None,
        params=(),
    ),
    trec=[TrecSpec("yaap", 53, nicknames=())],
)
def k_yaap(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    """m_yaap.c."""
    total = v.sum_by_row(v.rel[0], v.rel_precision)
    value = np.array(
        [
            math.log((1.0 + s) / (1.0 + r - s))
            for s, r in zip(total.tolist(), v.num_rel_f.tolist(), strict=True)
        ]
    )
    return for_each(value, ms)
