"""Many writers on one project, as a team works: several `judge` processes (assessors, one of
them twice on different topics) fed a line at a time, with an `import run` and an
`evaluate --db` started in the middle. Used by tests/commands/test_concurrent_writers.py
(small) and benchmarks/bench_load.py (2,000 judgments per stream)."""

from __future__ import annotations

import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def write_inputs(folder: Path, topics: int, docs: int, run_topics: int = 50) -> dict[str, Path]:
    """Topics 1..`topics`, a run retrieving `docs` documents for each (pooled whole), and a
    late run (`run_topics` x 1000 documents) to import during the stream."""
    folder.mkdir(parents=True, exist_ok=True)
    topic_file = folder / "topics.tsv"
    topic_file.write_text("".join(f"{q}\ttopic {q}\n" for q in range(1, topics + 1)))
    run = folder / "base.run"
    with run.open("w") as fh:
        for q in range(1, topics + 1):
            for d in range(docs):
                fh.write(f"{q} Q0 T{q}-D{d} {d + 1} {docs - d} base\n")
    late = folder / "late.run"
    with late.open("w") as fh:
        for q in range(1, run_topics + 1):
            for d in range(1000):
                fh.write(f"{q} Q0 L{q}-D{d} {d + 1} {1000 - d} late\n")
    return {"topics": topic_file, "run": run, "late": late}


def main_cmd(*args: str) -> list[str]:
    return [sys.executable, str(ROOT / "main.py"), *args]


def prepare(db: str, inputs: dict[str, Path], docs: int) -> None:
    for args in (
        ["init", db],
        ["import", "topics", db, str(inputs["topics"])],
        ["import", "run", db, str(inputs["run"])],
        ["pool", db, "--depth", str(docs)],
    ):
        result = subprocess.run(main_cmd(*args), capture_output=True, text=True, cwd=ROOT)
        if result.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {result.stderr}")


@dataclass
class Stream:
    assessor: str
    lines: list[str]  # "qid docno grade"
    recorded: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)  # line sent -> "recorded" read
    returncode: int | None = None
    stderr: str = ""


def streams_for(per_stream: int, docs: int) -> list[Stream]:
    """Six streams of four assessors; alice twice, on different topics. Each judges
    `per_stream` distinct pooled documents of its five topics."""
    plan = [
        ("alice", range(1, 6)),
        ("alice", range(6, 11)),
        ("bob", range(1, 6)),
        ("carol", range(11, 16)),
        ("dave", range(16, 21)),
        ("bob", range(11, 16)),
    ]
    out = []
    for n, (assessor, topics) in enumerate(plan):
        topics = list(topics)
        lines = [
            f"{topics[i % 5]} T{topics[i % 5]}-D{i // 5} {(i + n) % 4}" for i in range(per_stream)
        ]
        assert per_stream // 5 <= docs, "each stream judges distinct pooled documents"
        out.append(Stream(assessor, lines))
    return out


def _feed(db: str, stream: Stream) -> None:
    proc = subprocess.Popen(
        main_cmd("judge", db, "--assessor", stream.assessor),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    for line in stream.lines:
        t0 = time.perf_counter()
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        answer = proc.stdout.readline()
        if not answer.startswith("recorded "):
            break
        stream.latencies.append(time.perf_counter() - t0)
        stream.recorded.append(answer.split(maxsplit=1)[1].strip())
    proc.stdin.close()
    stream.stderr = proc.stderr.read() if proc.stderr else ""
    stream.returncode = proc.wait()


@dataclass
class LoadResult:
    streams: list[Stream]
    others: dict[str, subprocess.CompletedProcess]
    seconds: float

    @property
    def judgments(self) -> int:
        return sum(len(s.recorded) for s in self.streams)

    @property
    def failures(self) -> list[str]:
        bad = [f"judge {s.assessor}: {s.stderr.strip()}" for s in self.streams if s.returncode]
        bad += [
            f"{name}: {p.stderr.strip()[-300:]}" for name, p in self.others.items() if p.returncode
        ]
        return bad

    def latency_ms(self) -> tuple[float, float]:
        """Median and p95 of the time from a line sent to its `recorded` (ms)."""
        every = sorted(x for s in self.streams for x in s.latencies)
        p95 = every[min(len(every) - 1, int(0.95 * len(every)))]
        return statistics.median(every) * 1000, p95 * 1000


def run_load(db: str, streams: list[Stream], late_run: Path) -> LoadResult:
    """Start every stream, then (once they are under way) the import and the evaluation."""
    threads = [threading.Thread(target=_feed, args=(db, s)) for s in streams]
    others: dict[str, subprocess.CompletedProcess] = {}

    def other(name: str, *args: str) -> None:
        others[name] = subprocess.run(main_cmd(*args), capture_output=True, text=True, cwd=ROOT)

    start = time.perf_counter()
    for t in threads:
        t.start()
    while sum(len(s.recorded) for s in streams) < len(streams) * 10:
        time.sleep(0.01)
    side = [
        threading.Thread(target=other, args=("import run", "import", "run", db, str(late_run))),
        threading.Thread(
            target=other, args=("evaluate --db", "evaluate", "--db", db, "-m", "P.10")
        ),
    ]
    for t in side:
        t.start()
    for t in threads + side:
        t.join()
    return LoadResult(streams, others, time.perf_counter() - start)


def check(db: str, result: LoadResult) -> dict[str, int | str]:
    """What the project holds after the load: every recorded line in the judgments and the
    history, no duplicates, the file sound. Returns counts for the report."""
    from judgeapp.store import Store

    with Store.open(db, create=False) as store:
        judged = {(j.assessor, j.qid, j.docno): j.grade for j in store.judgments.all()}
        events = store.history.export()
        runs = [r.name for r in store.runs.all()]
        integrity = store.integrity_check() if store.dialect == "sqlite" else "ok (PostgreSQL)"
    missing = 0
    for s in result.streams:
        for line in s.recorded:
            qid, docno, grade = line.split()
            if judged.get((s.assessor, qid, docno)) != int(grade):
                missing += 1
    keys = [(e.assessor, e.qid, e.docno) for e in events]
    return {
        "recorded": result.judgments,
        "missing": missing,
        "history_events": len(events),
        "duplicate_events": len(keys) - len(set(keys)),
        "late_run_imported": int("late" in runs),
        "integrity": integrity,
    }
