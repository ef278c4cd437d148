"""One grade key's write on PostgreSQL: `JudgingService.record`, this checkout against
another (`--old`, e.g. a `git archive` of main), alternated (issue 28).

A throwaway server on 127.0.0.1 with fsync on (tests/pgserver.py); each side judges in a
project database of its own (the same topics and documents), as the project's owner and as
a team member (`--member`: the server function `judgeapp_judge`). Each round runs, for each
side in turn (the order alternating), a fresh process that judges `--judgments` documents
one key at a time, by document id as the window does (new judgments in round 1, changed
grades after). Prints per side and
round the median and p95 wall time of one `record`, the median CPU time of the judging
process and of its server session (the backend's /proc stat) per judgment, and the load
average; then the medians over rounds. Each round also times the floor: one INSERT and
COMMIT through plain psycopg (what any durable write on that server costs).

    python benchmarks/bench_pg_record.py --old /tmp/main-archive [--judgments 100] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.pgserver import PgServer, find_bindir  # noqa: E402

# run in a process whose judgeapp is the side's (its root first on sys.path)
WORKER = r"""
import json, os, sys, time
from judgeapp.services.judging import JudgingService
from judgeapp.store import Store

url, assessor, n, grade = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
TICKS = os.sysconf("SC_CLK_TCK")


def server_cpu(store):
    # the CPU time of every server session on this database (this process's only)
    with store.db.engine.connect() as conn:
        pids = conn.exec_driver_sql(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
        ).scalars().all()
    total = {}
    for pid in pids:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        total[pid] = (int(fields[11]) + int(fields[12])) / TICKS
    return total


with Store.open(url) as store:
    service = JudgingService(store, assessor)
    # document ids, as the window passes them (a docno would be interned first: a write)
    ids = store.documents.docno_ids([f"d{i}" for i in range(n)])
    docs = [ids[f"d{i}"] for i in range(n)]
    service.record("1", docs[0], grade)  # warm: the pool's connection, the statement cache
    walls, cpus = [], []
    before = server_cpu(store)
    for docno in docs[1:]:
        t0, p0 = time.perf_counter(), time.process_time()
        service.record("1", docno, grade)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - p0)
    after = server_cpu(store)
server = sum(t - before.get(pid, 0.0) for pid, t in after.items())
print(json.dumps({"walls": walls, "cpus": cpus, "server_cpu": server, "n": len(walls)}))
"""


def prepare(url: str, docs: int, tmp: Path, tag: str) -> str:
    """Topic 1, a run ranking `docs` documents, a pool; a member alice. Her URL."""
    from judgeapp.cli import main
    from judgeapp.store import Store

    topics = tmp / "topics.tsv"
    topics.write_text("1\tfirst\n")
    run = tmp / "a.run"
    run.write_text("".join(f"1 Q0 d{i} {i + 1} {docs - i} a\n" for i in range(docs)))
    for argv in (["init", url], ["import", "topics", url, str(topics)]):
        assert main(argv) == 0
    assert main(["import", "run", url, str(run)]) == 0
    assert main(["pool", url, "--depth", str(docs)]) == 0
    with Store.open(url) as store:
        role, password = store.team.add_member("alice", role=f"alice_{tag}")
    from sqlalchemy.engine import make_url

    return make_url(url).set(username=role, password=password).render_as_string(False)


def one_round(root: Path, url: str, assessor: str, n: int, grade: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", WORKER, url, assessor, str(n + 1), str(grade)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def floor_ms(server: PgServer, n: int) -> list[float]:
    """The floor: one INSERT and COMMIT through plain psycopg, `n` times (ms each)."""
    import time

    import psycopg

    with psycopg.connect(host="127.0.0.1", port=server.port, user="postgres") as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS floor (id serial PRIMARY KEY, v int)")
        conn.commit()
        out = []
        for i in range(n):
            t0 = time.perf_counter()
            conn.execute("INSERT INTO floor (v) VALUES (%s)", (i,))
            conn.commit()
            out.append((time.perf_counter() - t0) * 1000)
    return out


def p95(xs: list[float]) -> float:
    return statistics.quantiles(xs, n=20)[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", type=Path, required=True, help="the other checkout's root")
    ap.add_argument("--judgments", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--member", action="store_true", help="judge as a team member's role")
    args = ap.parse_args()
    bindir = find_bindir()
    if bindir is None:
        sys.exit("no PostgreSQL server binaries")
    sides = {"old": args.old.resolve(), "new": ROOT}
    results: dict[str, list[dict]] = {"old": [], "new": []}
    with PgServer(bindir, durable=True) as server, tempfile.TemporaryDirectory() as tmp:
        server.execute("CREATE ROLE owner_b LOGIN CREATEROLE PASSWORD 'pw'")
        urls = {}
        for name in sides:
            db = server.create_database(owner="owner_b")
            owner = server.url(db, user="owner_b", password="pw")
            (Path(tmp) / name).mkdir()
            member = prepare(owner, args.judgments + 1, Path(tmp) / name, db[-8:])
            urls[name] = (member, "alice") if args.member else (owner, "bob")
        print(f"PostgreSQL {bindir}, fsync on; {'member alice' if args.member else 'owner'}")
        for r in range(args.rounds):
            order = ["old", "new"] if r % 2 == 0 else ["new", "old"]
            for name in order:
                load = os.getloadavg()[0]
                res = one_round(sides[name], *urls[name], args.judgments, 1 + r % 3)
                res["load"] = load
                results[name].append(res)
                w = [x * 1000 for x in res["walls"]]
                c = [x * 1000 for x in res["cpus"]]
                print(
                    f"round {r + 1} {name}: record median {statistics.median(w):.2f} ms, "
                    f"p95 {p95(w):.2f} ms; CPU: judging process {statistics.median(c):.2f} ms, "
                    f"server session {res['server_cpu'] * 1000 / res['n']:.2f} ms a judgment; "
                    f"load {load:.2f}"
                )
            floor = floor_ms(server, args.judgments)
            print(
                f"round {r + 1} floor (one INSERT + COMMIT, plain psycopg): median "
                f"{statistics.median(floor):.2f} ms, p95 {p95(floor):.2f} ms"
            )
        for name in sides:
            meds = [statistics.median(x["walls"]) * 1000 for x in results[name]]
            cpus = [statistics.median(x["cpus"]) * 1000 for x in results[name]]
            print(
                f"{name}: medians over rounds: wall {statistics.median(meds):.2f} ms, "
                f"CPU {statistics.median(cpus):.2f} ms"
            )
        print(f"load average now {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
