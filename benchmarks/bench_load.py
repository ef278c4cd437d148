"""Many writers on one project, SQLite and PostgreSQL side by side (issue: many writers).

Eight writer processes at once: six `judge` streams of four assessors (alice twice, on
different topics), each fed one line at a time and waiting for its `recorded` (as a
crowd-sourcing pipeline does), 2,000 judgments each; an `import run` of 50 x 1000 entries
and an `evaluate --db` started once the streams are under way. Then the project is checked:
no writer failed, every recorded line is in the judgments and the history, once, and the
file passes integrity_check. Prints throughput and the latency of a judgment (line sent to
`recorded` read: the commit and any wait for another writer), median and p95.

Both back ends get the same files and the same streams; PostgreSQL runs on a throwaway
server on 127.0.0.1 with fsync on (SQLite: WAL, synchronous=FULL), so both commit durably.

    python benchmarks/bench_load.py [--per-stream 2000] [--rounds 1]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.load_driver import check, prepare, run_load, streams_for, write_inputs  # noqa: E402
from tests.pgserver import PgServer, find_bindir  # noqa: E402


def one(name: str, db: str, inputs, per_stream: int, docs: int) -> None:
    prepare(db, inputs, docs)
    result = run_load(db, streams_for(per_stream, docs), inputs["late"])
    report = check(db, result)
    median, p95 = result.latency_ms()
    print(f"{name}:")
    print(f"  writers failed      {len(result.failures)} {result.failures or ''}")
    print(
        f"  judgments recorded  {report['recorded']:,} in {result.seconds:.1f} s: "
        f"{report['recorded'] / result.seconds:,.0f} per second (6 streams together)"
    )
    print(
        f"  latency per judgment (line sent -> recorded): median {median:.1f} ms, p95 {p95:.1f} ms"
    )
    print(
        f"  missing {report['missing']}, history events {report['history_events']:,}, "
        f"duplicate events {report['duplicate_events']}, late run imported "
        f"{bool(report['late_run_imported'])}, integrity {report['integrity']}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-stream", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    docs = max(40, args.per_stream // 5)
    bindir = find_bindir()
    with tempfile.TemporaryDirectory(prefix="judgeapp-load-") as tmp:
        inputs = write_inputs(Path(tmp) / "in", topics=20, docs=docs, run_topics=50)
        for r in range(args.rounds):
            one(
                f"SQLite (round {r + 1})",
                str(Path(tmp) / f"load-{r}.db"),
                inputs,
                args.per_stream,
                docs,
            )
            if bindir is None:
                print("PostgreSQL: skipped (no server binaries; install Debian's postgresql)")
                continue
            with PgServer(bindir, durable=True) as pg:
                one(
                    f"PostgreSQL (round {r + 1})",
                    pg.url(pg.create_database()),
                    inputs,
                    args.per_stream,
                    docs,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
