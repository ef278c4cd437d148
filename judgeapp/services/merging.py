"""Bringing judgments made elsewhere into a project: a laptop's SQLite copy into the team's
PostgreSQL project, or the other way round. Every judgment comes with its notes, flag, time
spent and whole history; events are recognised by their uid, so merging is idempotent."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from judgeapp.records import MergeReport
from judgeapp.store import Store


@dataclass(frozen=True, slots=True)
class MergedProject:
    source: str
    report: MergeReport
    unknown_topics: list[str]  # topics judged there that this project does not have


def merge_projects(into: Store, sources: Sequence[str]) -> list[MergedProject]:
    """Merge the judgment histories of the projects `sources` (paths or URLs) into `into`,
    one after another, each in one transaction."""
    done = []
    for source in sources:
        with Store.open(source, create=False) as other:
            events = other.history.export()
        report = into.history.merge(events)
        known = {t.qid for t in into.topics.all()}
        unknown = sorted({e.qid for e in events} - known, key=str.encode)
        done.append(MergedProject(source, report, unknown))
    return done
