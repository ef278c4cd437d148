"""A judging campaign: who judges which topic (assignments with overlap), who sees what
(roles and blind mode), and how the work goes (progress per assessor and topic).

Assignments: every topic goes to `per_topic` assessors; a seeded share of the topics
(`overlap`) goes to one more, for measuring agreement (those topics are *shared*). Topics
are dealt out largest pool first, each to the assessors with the least pooled documents so
far, so the work is balanced by pool size. Planning again (after adding an assessor) keeps
every assessor on the topics they have judged already and plans the rest.

Roles: the project's owner and evaluators see everything; an assessor judging in blind mode
(on by default once a project has assignments) sees no dashboard, no run names or ranks, no
estimates and nobody else's judgments. A person's role is set (`team role`) or follows from
the assignments: a person with assignments is an assessor, anyone else an evaluator.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from judgeapp.errors import UserError
from judgeapp.records import Changes
from judgeapp.services.rows import natural_key
from judgeapp.store import Store

ROLES = ("owner", "evaluator", "assessor")
BLIND_SETTING = "team.blind"  # True, False, or absent: on once the project has assignments


class TeamError(UserError, ValueError):
    """A campaign that cannot be planned as asked."""


@dataclass(frozen=True, slots=True)
class Assignment:
    qid: str
    assessor: str
    shared: bool


def plan_assignments(
    sizes: Mapping[str, int],
    assessors: Sequence[str],
    *,
    per_topic: int = 1,
    overlap: float = 0.0,
    seed: int = 0,
    keep: Mapping[str, Sequence[str]] | None = None,
) -> list[Assignment]:
    """Topics (with their pool sizes) dealt out to `assessors`: `per_topic` each, one more on
    a seeded `overlap` share of them (shared topics), balanced by pool size. `keep` names,
    per topic, the assessors who stay on it whatever the plan (those who judged it)."""
    assessors = list(dict.fromkeys(assessors))
    if not assessors:
        raise TeamError("name at least one assessor")
    if per_topic < 1:
        raise TeamError("each topic needs at least one assessor (--per-topic 1 or more)")
    if not 0.0 <= overlap <= 1.0:
        raise TeamError(f"--overlap is a share of the topics, between 0 and 1, not {overlap}")
    if per_topic + (overlap > 0) > len(assessors):
        raise TeamError(
            f"{per_topic + (overlap > 0)} assessors per topic need at least that many assessors"
        )
    rng = np.random.default_rng(seed)
    qids = sorted(sizes, key=str.encode)
    n_shared = round(overlap * len(qids))
    shared = (
        {qids[i] for i in rng.choice(len(qids), size=n_shared, replace=False)} if qids else set()
    )
    keep = {q: [a for a in keep[q] if a in assessors] for q in keep} if keep else {}
    load = dict.fromkeys(assessors, 0)
    tiebreak = {a: float(x) for a, x in zip(assessors, rng.random(len(assessors)), strict=True)}
    for q, names in keep.items():
        for a in names:
            load[a] += sizes.get(q, 0)
    order = sorted(qids, key=lambda q: (-sizes[q], q.encode()))
    plan: list[Assignment] = []
    for q in order:
        wanted = per_topic + (q in shared)
        chosen = list(keep.get(q, []))  # those who judged it stay
        for a in sorted(
            (a for a in assessors if a not in chosen), key=lambda a: (load[a], tiebreak[a])
        ):
            if len(chosen) >= wanted:
                break
            chosen.append(a)
            load[a] += sizes[q]
        is_shared = q in shared or len(chosen) > per_topic
        plan += [Assignment(q, a, is_shared) for a in sorted(chosen)]
    return sorted(plan, key=lambda x: (x.qid.encode(), x.assessor))


def assign(
    store: Store,
    qids: Sequence[str],
    assessors: Sequence[str],
    *,
    pool: str | None = None,
    per_topic: int = 1,
    overlap: float = 0.0,
    seed: int = 0,
) -> list[Assignment]:
    """Plan and store the assignments of topics `qids` (balanced by the sizes of `pool`, the
    newest pool by default, else every topic counts as one), keeping every assessor on the
    topics they have judged. Assignments of other topics stay as they are."""
    names = store.pools.names()
    pool = pool or (names[-1] if names else None)
    all_sizes = store.pools.sizes(pool) if pool is not None else {}
    sizes = {q: all_sizes.get(q, 1) for q in qids}
    judged: dict[str, set[str]] = defaultdict(set)
    people = {a.name for a in store.team.assessors() if a.kind == "person"}
    for j in store.judgments.all():
        if j.qid in sizes and j.assessor in people:
            judged[j.qid].add(j.assessor)
    keep = {q: sorted(a for a in judged[q] if a in assessors) for q in judged}
    plan = plan_assignments(
        sizes, assessors, per_topic=per_topic, overlap=overlap, seed=seed, keep=keep
    )
    others = [(q, a, s) for q, a, s in store.team.assignments() if q not in sizes]
    store.team.set_assignments(others + [(p.qid, p.assessor, p.shared) for p in plan])
    return plan


def role_of(store: Store, name: str | None) -> str:
    """`name`'s role: set explicitly, else assessor if they have assignments, else
    evaluator. Nobody chosen yet: an evaluator. A team member's role on PostgreSQL: what
    the server says of it (it reads no one else's assignments)."""
    scope = store.scope
    if scope is not None and name == scope.assessor:
        return scope.team_role
    if not name:
        return "evaluator"
    for a in store.team.assessors():
        if a.name == name and a.role in ROLES:
            return a.role
    if any(a == name for _q, a, _s in store.team.assignments()):
        return "assessor"
    return "evaluator"


def blind_mode(store: Store) -> bool:
    """Whether assessors judge blind: the project's setting, on by default once the project
    has assignments."""
    value = store.settings.get(BLIND_SETTING)
    if value is None:
        return bool(store.team.assignments())
    return bool(value)


def set_blind_mode(store: Store, on: bool | None) -> None:
    """On, off, or back to the default (None)."""
    store.settings.put(BLIND_SETTING, on)


def is_blind(store: Store, name: str | None) -> bool:
    """Whether `name` judges blind: an assessor, in a project in blind mode. A team
    member's role on PostgreSQL: as the server decides what it may read (`Store.scope`)."""
    scope = store.scope
    if scope is not None and name == scope.assessor:
        return scope.blind
    return blind_mode(store) and role_of(store, name) == "assessor"


def set_role(store: Store, name: str, role: str | None) -> Changes:
    if role is not None and role not in ROLES:
        raise TeamError(f"unknown role {role!r} (one of {', '.join(ROLES)})")
    return store.team.set_role(name, role)


# -- how the work goes ----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class AssessorProgress:
    """One assessor's work: judgments per topic (of those assigned, and any other), their
    pace and their grades."""

    assessor: str
    role: str
    assigned: tuple[str, ...]
    judged: dict[str, int]  # qid -> documents judged
    pool_sizes: dict[str, int]  # qid -> pooled documents (assigned topics and judged ones)
    judgments: int
    hours: float  # active judging time
    per_hour: float | None
    median_seconds: float | None  # per document
    grades: dict[int, int]  # grade -> how many
    flagged: int
    flagged_docs: list[tuple[str, str]] = field(default_factory=list)  # (qid, docno)


def team_progress(store: Store, pool: str | None = None) -> list[AssessorProgress]:
    """Every person's progress on their assigned topics (and any other they judged), with
    judgments per hour of active time, the median seconds per document, their grade
    distribution and the documents they flagged."""
    names = store.pools.names()
    pool = pool or (names[-1] if names else None)
    sizes = store.pools.sizes(pool) if pool is not None else {}
    assigned: dict[str, list[str]] = defaultdict(list)
    for q, a, _s in store.team.assignments():
        assigned[a].append(q)
    by: dict[str, list] = defaultdict(list)
    for j in store.judgments.all():
        by[j.assessor].append(j)
    out = []
    for person in (a for a in store.team.assessors() if a.kind == "person"):
        mine = by.get(person.name, [])
        judged = Counter(j.qid for j in mine)
        seconds = [j.time_spent for j in mine if j.time_spent > 0]
        hours = sum(seconds) / 3600.0
        # topics in natural order ("5" before "10"), as the topic list shows them
        topics = sorted({*assigned.get(person.name, []), *judged}, key=natural_key)
        out.append(
            AssessorProgress(
                assessor=person.name,
                role=role_of(store, person.name),
                assigned=tuple(sorted(assigned.get(person.name, []), key=natural_key)),
                judged={q: judged.get(q, 0) for q in topics},
                pool_sizes={q: sizes.get(q, 0) for q in topics},
                judgments=len(mine),
                hours=hours,
                per_hour=(len(seconds) / hours) if hours > 0 else None,
                median_seconds=statistics.median(seconds) if seconds else None,
                grades=dict(sorted(Counter(j.grade for j in mine).items())),
                flagged=sum(1 for j in mine if j.flagged),
                flagged_docs=sorted(
                    ((j.qid, j.docno) for j in mine if j.flagged),
                    key=lambda qd: (natural_key(qd[0]), qd[1]),
                ),
            )
        )
    return out
