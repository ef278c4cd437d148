"""When a SQLite project's WAL is checkpointed: by what it holds that is not yet in the
database (judgeapp.store.locking), not by the WAL file's size, which stays as large as the
log ever grew because SQLite writes each new log over the old one from its start."""

from __future__ import annotations

import os
import sqlite3

from judgeapp.records import Topic
from judgeapp.store import JudgmentState, Store, locking


def _judge_many(store: Store, qid: str, docs: dict[str, int], alice: int, grade: int) -> None:
    for doc in docs.values():
        store.judgments.record(qid, doc, alice, JudgmentState(grade))


def test_the_backlog_is_what_sqlite_itself_counts(tmp_path):
    path = tmp_path / "p.db"
    store = Store.open(path)
    store.topics.put([(Topic("1", "one"), "test")])
    alice = store.team.assessor("alice").id
    docs = store.documents.intern([f"d{i}" for i in range(20)])
    _judge_many(store, "1", docs, alice, 1)
    backlog = locking._wal_backlog(str(path))
    assert 0 < backlog <= locking.CHECKPOINT_BYTES
    # SQLite's own count: (busy, frames in the log, frames checkpointed) of a checkpoint
    raw = sqlite3.connect(path)
    page = raw.execute("PRAGMA page_size").fetchone()[0]
    busy, frames, copied = raw.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    raw.close()
    assert busy == 0 and copied == frames
    assert backlog == frames * (page + 24)  # a frame: its 24-byte header and the page
    assert locking._wal_backlog(str(path)) == 0  # all of it checkpointed now
    store.close()


def test_a_judgment_after_a_checkpoint_does_not_checkpoint_again(tmp_path, monkeypatch):
    path = tmp_path / "p.db"
    store = Store.open(path)
    store.topics.put([(Topic("1", "one"), "test")])
    alice = store.team.assessor("alice").id
    docs = store.documents.intern([f"d{i}" for i in range(400)])
    checkpoints: list[int] = []
    real = locking._checkpoint_if_large

    def counted(engine, conn) -> None:
        before = locking._wal_backlog(str(path))
        real(engine, conn)
        if locking._wal_backlog(str(path)) < before:
            checkpoints.append(before)

    monkeypatch.setattr(locking, "_checkpoint_if_large", counted)
    # enough judgments to fill the log past its limit a few times
    _judge_many(store, "1", docs, alice, 1)
    wal = os.path.getsize(f"{path}-wal")
    assert wal > locking.CHECKPOINT_BYTES  # the file stays as large as the log grew
    assert checkpoints and all(b > locking.CHECKPOINT_BYTES for b in checkpoints)
    # one each time the log passed the limit, not one per judgment once the file had
    # (the file's size as the rule checkpointed after each of the last 370 judgments)
    assert len(checkpoints) <= len(docs) // 20
    done = len(checkpoints)
    store.judgments.record("1", docs["d0"], alice, JudgmentState(2))
    assert len(checkpoints) == done  # a WAL file over the limit is not a backlog over it
    assert 0 < locking._wal_backlog(str(path)) <= locking.CHECKPOINT_BYTES
    store.close()
    # what was judged is there for a new process
    again = Store.open(path)
    assert {j.grade for j in again.judgments.all() if j.docno == "d0"} == {2}
    again.close()
