"""A topic of the judging view read in a worker (`read_topic`): its judging queue, its
statement, the assessor's own highlight terms, and the document to show first with its
text, so that the GUI thread only shows what was read."""

from __future__ import annotations

from dataclasses import dataclass

from judgeapp.records import DocumentRecord, TopicRecord
from judgeapp.services.queue import JudgingQueue
from judgeapp.services.workbench import Workbench


@dataclass(slots=True)
class TopicLoad:
    """A topic read in a worker: its queue (None without pooled documents), statement,
    the assessor's own highlight terms, and the document to show first with its text."""

    qid: str
    queue: JudgingQueue | None
    topic: TopicRecord | None
    terms: str
    first: int | None
    record: DocumentRecord | None
    instruct: bool = False  # the assessor's first document: the instructions come first


def read_topic(wb: Workbench, qid: str, show: int | None, ask: bool) -> TopicLoad:
    """Read topic `qid` of `wb` (in a worker): its first document is `show` if it is
    pooled, else the first unjudged, else the first; `ask`: the instructions are due
    before the assessor's first judgment in the project (asked here whether they judged
    anything)."""
    queue = wb.queue(qid, background=True)
    first = record = None
    if queue is not None:
        first = show if show is not None and queue.row_of(show) is not None else None
        if first is None:
            first = queue.first_unjudged()
        if first is None:
            first = queue.neighbour(None, 0)
        record = wb.document(first) if first is not None else None
    assessor = wb.judging.assessor.name if wb.judging is not None else ""
    instruct = ask and queue is not None and not wb.has_judged(assessor)
    return TopicLoad(qid, queue, wb.topic(qid), wb.user_terms(qid), first, record, instruct)
