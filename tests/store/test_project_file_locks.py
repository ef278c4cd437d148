"""A second store opened and closed beside the first, in one process, must not drop the
first's SQLite locks (closing any descriptor of a file drops all of the process's POSIX locks
on it): another process would then take the first's WAL to be unused, checkpoint and reset
it, and the first store would read old data or a "malformed" file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from judgeapp.store import Store
from judgeapp.store.feed import ChangeFeed

ROOT = Path(__file__).resolve().parents[2]


def judgeapp(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_store_opened_beside_another_keeps_it_following_other_processes(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "p.db")
    (tmp_path / "t.tsv").write_text("1\tone\n2\ttwo\n")
    (tmp_path / "r.run").write_text("".join(f"1 Q0 D{i} {i} {-i} r\n" for i in range(1, 50)))
    (tmp_path / "late.run").write_text("".join(f"2 Q0 L{i} {i} {-i} late\n" for i in range(6)))
    assert judgeapp("init", db).returncode == 0
    assert judgeapp("import", "topics", db, str(tmp_path / "t.tsv")).returncode == 0
    assert judgeapp("import", "run", db, str(tmp_path / "r.run")).returncode == 0
    with Store.open(db) as first:
        feed = ChangeFeed(first.db)
        try:
            assert [r.name for r in first.runs.all()] == ["r"]
            with Store.open(db) as second:  # e.g. a test, a screenshot, a helper thread
                assert len(second.runs.all()) == 1
            assert judgeapp("import", "run", db, str(tmp_path / "late.run")).returncode == 0
            for k in range(1, 4):
                judged = judgeapp(
                    "judge", db, "--assessor", "x", "--allow-unpooled", stdin=f"1 D{k} 1\n"
                )
                assert judged.returncode == 0, judged.stderr
                changes = feed.poll()
                assert changes is not None and "1" in changes.topics
                assert len(first.history.rows("1")) == k
            assert sorted(r.name for r in first.runs.all()) == ["late", "r"]
        finally:
            feed.close()
