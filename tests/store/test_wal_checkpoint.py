"""When a SQLite project's WAL is checkpointed: when what it holds that is not yet in the
database passes a limit (judgeapp.store.locking). Every connection sets
journal_size_limit=0, so the writer that starts the log again after a checkpoint cuts the
file back, and the WAL file's size is that backlog; without it the file stays as large as
the log ever grew (SQLite writes each new log over the old one from its start) and a
checkpoint ran after every judgment once it had passed the limit."""

from __future__ import annotations

import os
import sqlite3

from judgeapp.records import Topic
from judgeapp.store import JudgmentState, Store, locking


def _judge_many(store: Store, qid: str, docs: dict[str, int], alice: int, grade: int) -> None:
    for doc in docs.values():
        store.judgments.record(qid, doc, alice, JudgmentState(grade))


def _wal_bytes(path) -> int:
    return os.path.getsize(f"{path}-wal")


def test_the_wal_file_holds_what_sqlite_itself_counts_as_not_checkpointed(tmp_path):
    path = tmp_path / "p.db"
    store = Store.open(path)
    store.topics.put([(Topic("1", "one"), "test")])
    alice = store.team.assessor("alice").id
    docs = store.documents.intern([f"d{i}" for i in range(20)])
    _judge_many(store, "1", docs, alice, 1)
    size = _wal_bytes(path)
    assert 0 < size <= locking.CHECKPOINT_BYTES
    # SQLite's own count: (busy, frames in the log, frames checkpointed) of a checkpoint
    raw = sqlite3.connect(path)
    page = raw.execute("PRAGMA page_size").fetchone()[0]
    busy, frames, copied = raw.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    raw.close()
    assert busy == 0 and copied == frames
    assert size == 32 + frames * (page + 24)  # the header, then each frame's and its page
    # the next judgment starts the log again, and the file is cut back to that one
    store.judgments.record("1", docs["d0"], alice, JudgmentState(2))
    assert _wal_bytes(path) < size
    store.close()


def test_a_judgment_after_a_checkpoint_does_not_checkpoint_again(tmp_path, monkeypatch):
    path = tmp_path / "p.db"
    store = Store.open(path)
    store.topics.put([(Topic("1", "one"), "test")])
    alice = store.team.assessor("alice").id
    docs = store.documents.intern([f"d{i}" for i in range(400)])
    checkpoints: list[int] = []
    real = locking._checkpoint_if_large
    largest = 0

    def counted(engine, conn) -> None:
        nonlocal largest
        before = _wal_bytes(path)
        largest = max(largest, before)
        if before > locking.CHECKPOINT_BYTES:
            checkpoints.append(before)
        real(engine, conn)

    monkeypatch.setattr(locking, "_checkpoint_if_large", counted)
    # enough judgments to fill the log past its limit a few times
    _judge_many(store, "1", docs, alice, 1)
    assert checkpoints, "the log passed its limit and was checkpointed"
    # one each time the log passed the limit, not one per judgment once the file had
    # (the file's size without journal_size_limit checkpointed after each of the last 370)
    assert len(checkpoints) <= len(docs) // 20
    assert largest < 2 * locking.CHECKPOINT_BYTES  # the file is cut back after each
    done = len(checkpoints)
    store.judgments.record("1", docs["d0"], alice, JudgmentState(2))
    assert len(checkpoints) == done
    assert 0 < _wal_bytes(path) <= locking.CHECKPOINT_BYTES
    store.close()
    # what was judged is there for a new process
    again = Store.open(path)
    assert {j.grade for j in again.judgments.all() if j.docno == "d0"} == {2}
    again.close()
