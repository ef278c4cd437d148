"""The assessor's workbench without Qt: one open project, one assessor, one pool.

The GUI holds one `Workbench` per open project and asks it for topic rows, judging queues,
imports and exports; everything here is plain Python over the store, testable without a
display. Choices that belong to the project (the pool being judged, the last topic of each
assessor, extra highlight terms) are kept in the project's settings, so they travel with
the file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from judgeapp.pooling.estimate import STOP_CONFIDENCE, STOP_TARGET, Estimate
from judgeapp.records import (
    AssessorInfo,
    Changes,
    DocumentRecord,
    GradeInfo,
    PoolHeader,
    PoolInfo,
    TopicRecord,
)
from judgeapp.services import imports, scale, team
from judgeapp.services.adjudication import AdjudicationService, Disagreement, disagreements
from judgeapp.services.judging import JudgingService
from judgeapp.services.policy import SOURCE, effective_judgments, qrels_rows
from judgeapp.services.pools import PoolService
from judgeapp.services.progress import ProgressFn, no_progress
from judgeapp.services.queue import JudgingQueue
from judgeapp.services.rows import TopicRow
from judgeapp.services.scale import ScaleSpec
from judgeapp.services.search import PoolIndex, SearchService
from judgeapp.store import Store
from judgeapp.store.feed import ChangeFeed

if TYPE_CHECKING:
    from judgeapp.services.agreement import AgreementReport
    from judgeapp.services.live_eval import DashboardConfig, LiveEvaluation

IMPORT_KINDS = ("topics", "documents", "runs", "qrels")


@dataclass(frozen=True, slots=True)
class WorkbenchState:
    """What the window shows of a project, read in one go (`Workbench.state`)."""

    title: str
    assessor: str | None
    persons: list[str]
    blind: bool
    assignments: dict[str, bool]
    topic_rows: list[TopicRow]
    pools: list[PoolHeader]
    pool: PoolHeader | None  # the pool being judged
    runs: list[str]  # in import order
    run_topics: list[str]  # the topics any run retrieved documents for
    last_topic: str | None
    scale: list[GradeInfo]
    guidelines: str
    relevant_from: int
    check_due: bool  # the last session ended without closing the file: a check is due


def location_shown(location: str) -> str:
    """A project's path or URL as the window may show it: a server's URL with its password
    (the role's only credential) written `***`."""
    if "://" not in location:
        return location
    from judgeapp.store.schema import url_without_password

    return url_without_password(location)


class Workbench:
    def __init__(self, store: Store, assessor: str | None = None) -> None:
        self.store = store
        self.pooling = PoolService(store)
        self.judging: JudgingService | None = None
        if assessor:
            self.set_assessor(assessor)
        self._topics: dict[str, TopicRecord] | None = None
        self._relevant_from: int | None = None
        # the pool being judged when none was chosen: (assessor, pool), worked out once
        self._pool_guess: tuple[str | None, str | None] | None = None

    # -- project -------------------------------------------------------------------------------
    @property
    def path(self) -> str:
        return self.store.url

    def display_name(self) -> str:
        name = self.store.settings.get("project_name")
        if name:
            return str(name)
        url = self.store.url
        if url.startswith("sqlite"):
            return Path(url.split("///", 1)[-1]).stem
        return location_shown(url)

    def close(self) -> None:
        self.store.close()

    def short_writes(self, wait: float) -> AbstractContextManager[None]:
        """Writes of this thread inside the block wait at most `wait` seconds for another
        writer, then raise ProjectBusy (the GUI retries instead of freezing)."""
        return self.store.writing_with(wait)

    def live_evaluation(
        self, config: DashboardConfig, generation: int = 0, pool: str | None = None
    ) -> LiveEvaluation:
        """Every run evaluated under `config`, kept up to date change by change (the
        dashboard's model; seconds at TREC scale: build it in a worker)."""
        from judgeapp.services.live_eval import LiveEvaluation  # the engine: not at start-up

        return LiveEvaluation(self.store, config, generation=generation, pool=pool)

    def estimate_total(
        self, pool: str | None, qid: str, persons: Sequence[str], relevance_level: int = 1
    ) -> tuple[float, float, float] | None:
        """The pooling estimate of a topic's total relevant documents (see live_eval)."""
        from judgeapp.services.live_eval import estimate_total

        return estimate_total(self.store, pool, qid, persons, relevance_level)

    def disagreements(self, relevant_from: int | None = None) -> list[Disagreement]:
        """The documents assessors judged differently (judgeapp.services.adjudication)."""
        return disagreements(self.store, relevant_from=relevant_from)

    def adjudicator(self) -> AdjudicationService:
        """The current assessor deciding disagreements."""
        if self.assessor is None:
            raise ValueError("choose who adjudicates first")
        return AdjudicationService(self.store, self.assessor)

    def assign(
        self,
        topics: str,
        assessors: Sequence[str],
        *,
        per_topic: int = 1,
        overlap: float = 0.0,
        seed: int = 0,
        blind: bool | None = None,
    ) -> Changes:
        """Assign the topics of the spec `topics` (every topic of the pool being judged when
        empty) to `assessors`, as `assign` does; `blind` sets blind mode (None: the default)."""
        from judgeapp.services.selection import select_topics

        pool = self.pool_name()
        pooled = self.store.pools.sizes(pool) if pool is not None else {}
        every = list(pooled) or list(self.topics())
        qids = select_topics(topics, self.topics()) or every
        team.assign(
            self.store, qids, assessors, pool=pool, per_topic=per_topic, overlap=overlap, seed=seed
        )
        team.set_blind_mode(self.store, blind)
        return Changes(assessors=True, topic_list=True)

    def team_progress(self) -> list[team.AssessorProgress]:
        """Every person's progress, pace, grades and flags (judgeapp.services.team)."""
        return team.team_progress(self.store, self.pool_name())

    def agreement_report(self, measure: str | None = "AP") -> AgreementReport:
        """The agreement of everyone who judged, with system rankings compared by `measure`
        (judgeapp.services.agreement)."""
        from judgeapp.services.agreement import agreement_report

        persons = self.persons()
        return agreement_report(
            self.store,
            persons if len(persons) >= 2 else None,  # the team; else everyone who judged
            rankings=measure if self.store.runs.all() else None,
        )

    def change_feed(self) -> ChangeFeed:
        """What other processes commit to the project, as `Changes` (poll it)."""
        return ChangeFeed(self.store.db)

    def scale(self) -> list[GradeInfo]:
        return self.store.settings.scale()

    def relevant_from(self) -> int:
        """The project's lowest relevant grade (its scale's choice), read once per change."""
        if self._relevant_from is None:
            self._relevant_from = self.store.settings.relevant_from()
        return self._relevant_from

    def guidelines(self) -> str:
        return self.store.settings.guidelines()

    def setting(self, key: str, default: Any = None) -> Any:
        """A setting kept in the project (it travels with the file). A team member's own
        copy of a shared place in the work (`PERSONAL`) comes first."""
        personal = self._personal(key)
        if personal != key:
            value = self.store.settings.get(personal)
            if value is not None:
                return value
        return self.store.settings.get(key, default)

    def set_setting(self, key: str, value: Any) -> None:
        self.store.settings.put(self._personal(key), value)

    # places in the work that every window of a project shares, except that a team member's
    # role keeps its own (the server lets it write no other: schema 0006)
    PERSONAL = ("ui.pool", "ui.dashboard")

    def _personal(self, key: str) -> str:
        if key in self.PERSONAL and self.store.is_member and self.assessor:
            return f"{key}.{self.assessor}"
        return key

    def run_topics(self) -> list[str]:
        """The topics any run retrieved documents for."""
        return sorted(self.store.runs.topics(), key=str.encode)

    def run_names(self) -> list[str]:
        """The project's runs, in import order."""
        return [r.name for r in self.store.runs.all()]

    def document(self, doc_id: int) -> DocumentRecord | None:
        return self.store.documents.by_id(doc_id)

    def documents(self, doc_ids: Iterable[int]) -> dict[int, DocumentRecord]:
        """The documents of `doc_ids` with text in the project, by doc id (batched)."""
        return self.store.documents.by_ids(doc_ids)

    def pool_texts(self, queue: JudgingQueue) -> tuple[dict[int, DocumentRecord], PoolIndex]:
        """Every document of a judging queue that has text, and a full-text index of them
        for the search box (`PoolIndex`): what the judging view keeps while the topic is
        open, so that neither the next document nor a search waits for the database."""
        records = self.documents(item.doc_id for item in queue.items)
        index = PoolIndex(
            (item.doc_id, item.docno, r.title, r.text)
            for item in queue.items
            for r in [records.get(item.doc_id)]
            if r is not None
        )
        return records, index

    def search(self) -> SearchService:
        """Searches of the collection by the current assessor (judgeapp.services.search)."""
        if self.judging is None:
            raise ValueError("choose who searches first")
        return SearchService(self.store, self.judging.assessor.id, self.judging.assessor.name)

    def state(self) -> WorkbenchState:
        """What the window shows of the project, read at once (in a worker: the window
        never waits for the database): its name, the assessor's place and visibility, the
        topic list, the pools, the scale. Read through one connection and transaction (on
        PostgreSQL each read of its own would take a transaction's round trips)."""
        with self.store.reading():
            return self._state()

    def _state(self) -> WorkbenchState:
        pool = self.pool_name()
        pools = self.store.pools.headers()
        return WorkbenchState(
            title=self.display_name(),
            assessor=self.assessor,
            persons=self.persons(),
            blind=self.is_blind(),
            assignments=self.assignments(),
            topic_rows=self.topic_rows(),
            pools=pools,
            pool=next((p for p in pools if p.name == pool), None),
            runs=self.run_names(),
            run_topics=self.run_topics(),
            last_topic=self.last_topic(),
            scale=self.scale(),
            guidelines=self.guidelines(),
            relevant_from=self.relevant_from(),
            check_due=self.store.check_due,
        )

    # -- assessors ----------------------------------------------------------------------------
    def assessors(self) -> list[AssessorInfo]:
        """Everyone who judged or may judge, and every imported qrels source."""
        return self.store.team.assessors()

    def persons(self) -> list[str]:
        return [a.name for a in self.assessors() if a.kind == "person"]

    def sources(self) -> list[str]:
        """The imported judgment sources (qrels files), which are not assessors."""
        return [a.name for a in self.assessors() if a.kind != "person"]

    def set_assessor(self, name: str) -> JudgingService:
        self.judging = JudgingService(self.store, name)
        self._topics = None  # a blind assessor's topic list is theirs
        return self.judging

    def connected_as(self) -> str | None:
        """The assessor whose database role this connection is (PostgreSQL): the only one
        this window may judge as. None: the owner, or a SQLite project (a name is a label)."""
        return self.store.team.current_assessor()

    @property
    def read_only(self) -> bool:
        """Whether this user may only read the project (a file, or its folder, that they
        may not write): it is shown, and nothing can be recorded in it."""
        return self.store.read_only

    @property
    def is_member(self) -> bool:
        """Whether this connection is a team member's own role (PostgreSQL), which may
        not change the project: the window offers no import or pool building then."""
        return self.store.scope is not None

    def check_file(self) -> list[str]:
        """The project file's check (`Store.check`): the problems found, none if sound."""
        return self.store.check()

    def apply_scale(self, spec: ScaleSpec) -> Changes:
        """Save a new grading scale (judgeapp.services.scale.apply); the changes made."""
        return scale.apply(self.store, spec)

    def read_only_reason(self) -> str:
        """Why nothing can be recorded in a read-only project, and what to do, in plain
        words (the window says it once)."""
        from judgeapp.store.schema import sqlite_path

        where = sqlite_path(self.path) or location_shown(self.path)
        return (
            f"This project is read-only for you: you may not write {where} (or its folder), "
            "so nothing can be recorded in it. You can read its topics, documents and "
            "judgments. To judge, copy it to a folder of yours (python3 main.py copy FROM TO) "
            "and open the copy, or ask its owner for write access."
        )

    @property
    def assessor(self) -> str | None:
        return None if self.judging is None else self.judging.assessor.name

    def role(self) -> str:
        """The current assessor's role: owner, evaluator or assessor (judgeapp.services.team)."""
        return team.role_of(self.store, self.assessor)

    def is_blind(self) -> bool:
        """Whether the current assessor judges blind: no dashboard, no run names or ranks,
        no estimates, nobody else's judgments."""
        return team.is_blind(self.store, self.assessor)

    def assignments(self) -> dict[str, bool]:
        """The current assessor's topics: qid -> shared."""
        me = self.assessor
        return {q: s for q, a, s in self.store.team.assignments() if a == me}

    # -- topics ----------------------------------------------------------------------------------
    def topics(self) -> dict[str, TopicRecord]:
        """The topics this assessor works on: every topic, but for an assessor judging
        blind only the assigned ones (where they have any), as the server shows such an
        assessor's role on PostgreSQL."""
        if self._topics is None:
            topics = {t.qid: t for t in self.store.topics.all()}
            if self.judging is not None and self.is_blind():
                mine = self.assignments()
                if mine:
                    topics = {q: t for q, t in topics.items() if q in mine}
            self._topics = topics
        return self._topics

    def topic(self, qid: str) -> TopicRecord | None:
        return self.topics().get(qid)

    def invalidate(self, changes: Changes) -> None:
        """Forget cached reads that `changes` made stale."""
        if changes.topic_list or changes.assessors:  # assignments, roles, blind mode
            self._topics = None
        if changes.assessors and self.store.is_member:
            self.store.refresh_scope()
        if changes.scale:
            self._relevant_from = None
        if changes.pools:
            self._pool_guess = None

    def topic_rows(self, qids: Sequence[str] | None = None) -> list[TopicRow]:
        """The project's topics (or `qids` among them) with their pool size and this
        assessor's counts of the pooled documents (of all their judgments of the topic when
        there is no pool)."""
        topics = list(self.topics().values())
        if qids is not None:
            wanted = set(qids)
            topics = [t for t in topics if t.qid in wanted]
        if self.judging is None:
            return [TopicRow(t.qid, t.title, 0, 0, 0) for t in topics]
        mine = self.assignments()
        who = [self.judging.assessor.name]
        # the imported qrels' judgments, a figure of their own (never to a blind assessor)
        sources = [] if self.is_blind() else self.source_names()
        pool = self.pool_name()
        if pool is None:
            one = qids[0] if qids is not None and len(qids) == 1 else None
            judged = effective_judgments(self.store, who, one).topics
            imported = effective_judgments(self.store, sources, one).topics if sources else {}
            rows = []
            for t in topics:
                _ids, grades = judged.get(t.qid, (np.empty(0), np.empty(0)))
                rows.append(
                    TopicRow(
                        t.qid,
                        t.title,
                        0,
                        len(grades),
                        int((grades >= self.relevant_from()).sum()),
                        assigned=t.qid in mine,
                        shared=mine.get(t.qid, False),
                        imported=len(imported.get(t.qid, ((), ()))[0]),
                    )
                )
            return rows
        topic_ids = [t.qid for t in topics]
        level = self.relevant_from()
        sizes = self.store.pools.sizes(pool)  # counted once for both
        progress = {
            p.qid: p for p in self.pooling.pool_progress(pool, who, level, topic_ids, sizes=sizes)
        }
        by_sources = (
            {
                p.qid: p.judged
                for p in self.pooling.pool_progress(pool, sources, level, topic_ids, sizes=sizes)
            }
            if sources
            else {}
        )
        return [
            TopicRow(
                t.qid,
                t.title,
                p.size if p else 0,
                p.judged if p else 0,
                p.relevant if p else 0,
                assigned=t.qid in mine,
                shared=mine.get(t.qid, False),
                imported=by_sources.get(t.qid, 0),
            )
            for t in topics
            for p in [progress.get(t.qid)]
        ]

    def source_names(self) -> list[str]:
        """The imported qrels sources (assessors of kind "source")."""
        return [a.name for a in self.store.team.assessors() if a.kind == SOURCE]

    def topic_estimates(
        self, qids: Iterable[str] | None = None, progress: ProgressFn = no_progress
    ) -> dict[str, Estimate]:
        """The estimate of each topic's total relevant documents in the pool being judged,
        from this assessor's judgments (`Store.estimate_relevant`), for `qids` or every
        topic they judged in the pool; topics it cannot estimate yet are left out. Seconds
        at TREC scale: the GUI calls it in a worker."""
        pool = self.pool_name()
        if pool is None or self.judging is None:
            return {}
        who = [self.judging.assessor.name]
        if qids is None:
            qids = [p.qid for p in self.pooling.pool_progress(pool, who) if p.judged]
        qids = list(qids)
        estimates = {}
        stop = self.stop_target()
        progress(0, len(qids) + 1, "calibrating on the topics judged whole")
        calibration = self.pooling.project_calibration(pool, who, self.relevant_from())
        for i, qid in enumerate(qids):
            progress(i + 1, len(qids) + 1, f"estimating topic {qid}")
            estimate = self.pooling.estimate_relevant(
                pool,
                qid,
                assessors=who,
                min_grade=self.relevant_from(),
                stop=stop,
                calibration=calibration,
            )
            if estimate is not None:
                estimates[qid] = estimate
        return estimates

    def stop_target(self) -> tuple[float, float]:
        """(target recall, confidence) of the stopping advice: the project's settings
        `estimate.stop_target` and `estimate.stop_confidence`, else 0.8 and 0.95."""
        target = self.store.settings.get("estimate.stop_target", STOP_TARGET)
        confidence = self.store.settings.get("estimate.stop_confidence", STOP_CONFIDENCE)
        try:
            target, confidence = float(target), float(confidence)
        except (TypeError, ValueError):
            return STOP_TARGET, STOP_CONFIDENCE
        if not (0.0 < target <= 1.0 and 0.0 < confidence < 1.0):
            return STOP_TARGET, STOP_CONFIDENCE
        return target, confidence

    def set_stop_target(self, target: float, confidence: float) -> None:
        """The project's target recall and confidence of the stopping advice (every
        assessor's advice follows them)."""
        if not (0.0 < target <= 1.0 and 0.0 < confidence < 1.0):
            raise ValueError(
                f"a target recall in (0, 1] and a confidence in (0, 1), not {target} and "
                f"{confidence}"
            )
        self.store.settings.put("estimate.stop_target", float(target))
        self.store.settings.put("estimate.stop_confidence", float(confidence))

    def topic_row(self, qid: str) -> TopicRow | None:
        rows = self.topic_rows([qid])
        return rows[0] if rows else None

    def remember_topic(self, qid: str) -> None:
        if self.assessor and self.last_topic() != qid:
            self.store.settings.put(f"ui.last_topic.{self.assessor}", qid)

    def last_topic(self) -> str | None:
        if not self.assessor:
            return None
        qid = self.store.settings.get(f"ui.last_topic.{self.assessor}")
        return qid if qid in self.topics() else None

    def has_judged(self, assessor: str) -> bool:
        """Whether `assessor` has any judgment in the project."""
        return self.store.judgments.any_by(assessor)

    def user_terms(self, qid: str) -> str:
        return str(self.store.settings.get(f"ui.terms.{self.assessor}.{qid}", "") or "")

    def set_user_terms(self, qid: str, text: str) -> None:
        if text != self.user_terms(qid):
            self.store.settings.put(f"ui.terms.{self.assessor}.{qid}", text)

    # -- pools -------------------------------------------------------------------------------------
    def pools(self) -> list[PoolInfo]:
        return self.store.pools.all()

    def pool_name(self) -> str | None:
        """The pool being judged: the one chosen (or built) last; else the one this
        assessor has judged the most of, else the one the project's judgments (imported
        qrels too) cover the most of (`judged_pool`); else the newest."""
        names = self.store.pools.names()
        chosen = self.setting("ui.pool")
        if chosen in names:
            return str(chosen)
        if len(names) < 2:
            return names[-1] if names else None
        if self._pool_guess is None or self._pool_guess[0] != self.assessor:
            self._pool_guess = (self.assessor, self.judged_pool(names))
        return self._pool_guess[1]

    def judged_pool(self, names: Sequence[str]) -> str:
        """Of the pools `names` (oldest first), the one with the largest share of its
        documents judged by this assessor, or, when they judged none, by anyone (imported
        qrels included): the pool being worked through, not merely the newest (a deeper
        pool built for later holds the same judgments over more documents). Ties go to the
        newest."""
        totals: dict[str, int] = {}  # pooled documents of each pool, counted when needed
        for who in ([self.assessor] if self.assessor else []) + [None]:
            judged = effective_judgments(
                self.store, [who] if who else None, policy=self.pooling.policy
            ).topics
            if not any(len(ids) for ids, _grades in judged.values()):
                continue  # nothing judged: no pool is being worked through (nothing counted)
            shares = []
            for name in names:
                pooled = self.store.pools.doc_ids(name, list(judged))
                inside = sum(
                    int(np.isin(ids, pooled.get(q, ()), assume_unique=True).sum())
                    for q, (ids, _grades) in judged.items()
                )
                if name not in totals:
                    totals[name] = sum(self.store.pools.sizes(name).values())
                shares.append(inside / totals[name] if totals[name] else 0.0)
            if max(shares) > 0:
                best = max(shares)
                return [n for n, share in zip(names, shares, strict=True) if share == best][-1]
        return names[-1]

    def pool_info(self) -> PoolInfo | None:
        name = self.pool_name()
        return None if name is None else self.store.pools.get(name)

    def choose_pool(self, name: str) -> Changes:
        self.store.pools.get(name)  # raises for an unknown pool
        self.set_setting("ui.pool", name)
        return Changes(pools=True)

    def build_pool(
        self,
        name: str,
        runs: Sequence[str],
        strategy: str,
        params: dict,
        judging_order: str,
        seed: int = 0,
        progress: ProgressFn = no_progress,
        *,
        qids: Sequence[str] | None = None,
    ) -> PoolInfo:
        """Pool `runs` (over `qids`, or every topic they retrieved for) and make the new
        pool the one being judged."""
        info = self.pooling.create_pool(
            name,
            runs=list(runs),
            strategy=strategy,
            params=params,
            judging_order=judging_order,
            seed=seed,
            qids=qids,
            progress=progress,
        )
        self.store.settings.put("ui.pool", info.name)
        return info

    def queue(self, qid: str, *, background: bool = False) -> JudgingQueue | None:
        """The judging queue of `qid` in the current pool, resumed where this assessor left
        it; None without a pool, an assessor, or pooled documents for the topic. With
        `background` an order that learns a model leaves the fits to the caller's worker
        (`JudgingOrder.training`)."""
        pool = self.pool_name()
        if pool is None or self.judging is None:
            return None
        # a blind assessor sees no runs or ranks whatever the order (and nobody else's work);
        # where the server keeps the runs from them (a team member's role on PostgreSQL) an
        # order that reads the runs cannot be followed: they judge in the blind shuffle
        blind = self.is_blind()
        hidden = blind and self.store.scope is not None
        order = self.pooling.open_judging_order(
            pool,
            qid,
            order="blind" if hidden else None,
            assessors=[self.judging.assessor.name],
            min_grade=self.relevant_from(),
            background=background,
        )
        if not len(order.topic):
            return None
        return JudgingQueue(
            self.judging,
            order.topic,
            order,
            blind=True if blind else None,
            hide_others=blind,
            relevant_from=self.relevant_from(),
        )

    # -- files -----------------------------------------------------------------------------------
    def import_files(
        self,
        kind: str,
        paths: Sequence[str | Path],
        fmt: str | None = None,
        progress: ProgressFn = no_progress,
    ) -> imports.ImportReport:
        """Import files of one kind in one transaction (see judgeapp.services.imports)."""
        if kind == "topics":
            report = imports.import_topics(self.store, paths, fmt, progress)
        elif kind == "documents":
            report = imports.import_documents(self.store, paths, fmt, progress)
        elif kind == "runs":
            report = imports.import_runs(self.store, paths, fmt=fmt, progress=progress)
        elif kind == "qrels":
            report = imports.import_qrels(self.store, paths, fmt=fmt, progress=progress)
        else:
            raise ValueError(f"unknown import kind {kind!r} (one of {', '.join(IMPORT_KINDS)})")
        self.invalidate(report.changes)
        return report

    def export_qrels(self, out: str | Path, assessors: Sequence[str] | None = None) -> int:
        """Write the effective judgments (of `assessors`, all by default) as TREC qrels."""
        from judgeapp.formats import write_qrels

        rows = qrels_rows(self.store, assessors)
        write_qrels(rows, out)
        return len(rows)
