"""Searching the whole collection on PostgreSQL, before and after the term statistics of
schema 0008 (judgeapp.store.postings): the store's `find`, as the search panel calls it
(`parse_query(text, stop_words=True)`, the 200 best), for the queries bench_workbench's
part 3 makes (each topic's title, its first two words, its first word quoted).

    python benchmarks/bench_search_pg.py find BEFORE_ROOT BEFORE_URL AFTER_URL [--rounds 5]
    python benchmarks/bench_search_pg.py import BEFORE_ROOT SERVER_URL [--docs 10000]
    python benchmarks/bench_search_pg.py size URL

BEFORE_ROOT is a checkout of judgeapp before the change (its `find` ranks by `ts_rank`);
this checkout is the after side. `find`: BEFORE_URL and AFTER_URL hold the same project
(`benchmarks/trec_scale.py URL --docs N`, built by each checkout); each side is a process
of its own keeping its store open (as the window does), the queries alternated between
them, the order swapped every round. `import`: documents put into a new project of each
side, alternated. The server must run on this machine: its CPU time is read from /proc
(the postmaster's children, live and reaped), the whole tree's is that plus the client's.
Medians over rounds; the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TICK = os.sysconf("SC_CLK_TCK")

# a side: a process importing judgeapp from its own root, answering one request a line
WORKER = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from judgeapp.store import Store
from judgeapp.services.search import parse_query
store = Store.open(sys.argv[2])
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    req = json.loads(line)
    c0, t0 = time.process_time(), time.perf_counter()
    if req["do"] == "find":
        hits = store.search.find(parse_query(req["text"], stop_words=True), limit=200)
        out = {"docnos": [h.docno for h in hits]}
    elif req["do"] == "titles":
        out = {"titles": [t.title for t in store.topics.all()]}
    else:  # import
        from judgeapp.records import Document
        docs = [(Document(d, t, x), None) for d, t, x in req["docs"]]
        c0, t0 = time.process_time(), time.perf_counter()
        store.documents.put(docs)
        out = {}
    out.update(wall=time.perf_counter() - t0, cpu=time.process_time() - c0)
    print(json.dumps(out), flush=True)
"""


def _server_cpu(postmaster: int) -> float:
    fields = Path(f"/proc/{postmaster}/stat").read_text().rsplit(")", 1)[1].split()
    total = sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    for child in Path(f"/proc/{postmaster}/task/{postmaster}/children").read_text().split():
        try:
            f = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += int(f[11]) + int(f[12])
    return total / TICK


class Side:
    def __init__(self, name: str, root: Path, url: str) -> None:
        self.name = name
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(root), url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=root,
        )
        assert json.loads(self.ask_line())["ready"]

    def ask_line(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"{self.name}: the worker stopped")
        return line

    def ask(self, request: dict, postmaster: int) -> dict:
        assert self.proc.stdin is not None
        s0, t0 = _server_cpu(postmaster), time.perf_counter()
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        out = json.loads(self.ask_line())
        out["round_trip"] = time.perf_counter() - t0
        out["server"] = _server_cpu(postmaster) - s0
        return out

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(60)


def postmaster_of(url: str) -> int:
    import psycopg

    with psycopg.connect(url.replace("postgresql+psycopg", "postgresql")) as conn:
        data = conn.execute("SHOW data_directory").fetchone()[0]
    return int((Path(data) / "postmaster.pid").read_text().split()[0])


def med(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:8.1f} ms"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def bench_find(args: argparse.Namespace) -> None:
    postmaster = postmaster_of(args.after_url)
    before = Side("before", Path(args.before_root), args.before_url)
    after = Side("after", ROOT, args.after_url)
    titles = after.ask({"do": "titles"}, postmaster)["titles"][: args.topics]
    queries = []
    for title in titles:
        words = title.split()
        queries += [" ".join(words), " ".join(words[:2]), f'"{words[0]}"']
    print(f"load average before: {load()}")
    print(f"{len(queries)} queries ({args.topics} topics' titles, two words, a quoted word), ")
    print(f"{args.rounds} rounds, the sides alternated per query, the order swapped per round")
    times: dict[str, dict[str, list[float]]] = {
        s: {"wall": [], "client": [], "server": [], "tree": []} for s in ("before", "after")
    }
    overlap = []
    for r in range(args.rounds):
        for text in queries:
            order = [before, after] if r % 2 == 0 else [after, before]
            got = {}
            for side in order:
                out = side.ask({"do": "find", "text": text}, postmaster)
                got[side.name] = out["docnos"]
                t = times[side.name]
                t["wall"].append(out["round_trip"])
                t["client"].append(out["cpu"])
                t["server"].append(out["server"])
                t["tree"].append(out["cpu"] + out["server"])
            if r == 0:
                a, b = set(got["before"]), set(got["after"])
                overlap.append(len(a & b) / max(len(a | b), 1))
    before.close()
    after.close()
    print(f"load average after:  {load()}")
    print(f"{'':24s}{'before (ts_rank)':>18s}{'after (BM25)':>16s}{'ratio':>8s}")
    for key, label in (
        ("wall", "wall, median"),
        ("tree", "CPU, whole tree"),
        ("client", "  of which client"),
        ("server", "  of which server"),
    ):
        b, a = statistics.median(times["before"][key]), statistics.median(times["after"][key])
        print(f"{label:24s}{b * 1000:15.1f} ms{a * 1000:13.1f} ms{b / max(a, 1e-9):7.1f}x")
    b, a = max(times["before"]["wall"]), max(times["after"]["wall"])
    print(f"{'wall, max':24s}{b * 1000:15.1f} ms{a * 1000:13.1f} ms")
    print(f"the 200 best: same documents {statistics.mean(overlap):.0%} (ts_rank vs BM25)")


def bench_import(args: argparse.Namespace) -> None:
    import numpy as np

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from trec_scale import _sentences

    sentences = _sentences()
    rng = np.random.default_rng(3)
    docs = []
    for i in range(args.docs):
        body = [sentences[k] for k in rng.integers(0, len(sentences), 19).tolist()]
        docs.append((f"B{i:07d}", " ".join(body[0].split()[:9]), " ".join(body)))
    text_kb = sum(len(t) + len(x) for _, t, x in docs) / len(docs) / 1000
    postmaster = postmaster_of(args.server_url)
    import psycopg

    admin = args.server_url.replace("postgresql+psycopg", "postgresql")
    print(f"load average before: {load()}")
    print(f"{args.docs:,} documents of {text_kb:.1f} KB a put, into a new project of each side")
    times: dict[str, dict[str, list[float]]] = {
        s: {"wall": [], "tree": [], "server": []} for s in ("before", "after")
    }
    for r in range(args.rounds):
        for name in ("before", "after") if r % 2 == 0 else ("after", "before"):
            db = f"bench_import_{name}_{r}"
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{db}"')
                conn.execute(f'CREATE DATABASE "{db}"')
            url = args.server_url.rsplit("/", 1)[0] + "/" + db
            root = Path(args.before_root) if name == "before" else ROOT
            side = Side(name, root, url)
            out = side.ask({"do": "import", "docs": docs}, postmaster)
            side.close()
            times[name]["wall"].append(out["round_trip"])
            times[name]["server"].append(out["server"])
            times[name]["tree"].append(out["cpu"] + out["server"])
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE "{db}"')
    print(f"load average after:  {load()}")
    print(f"{'':24s}{'before':>12s}{'after':>12s}{'after/before':>14s}")
    for key, label in (("wall", "wall"), ("tree", "CPU, whole tree"), ("server", "  of it server")):
        b, a = statistics.median(times["before"][key]), statistics.median(times["after"][key])
        print(f"{label:24s}{b:10.2f} s{a:10.2f} s{a / b:13.2f}x")


def bench_size(args: argparse.Namespace) -> None:
    import psycopg

    with psycopg.connect(args.url.replace("postgresql+psycopg", "postgresql")) as conn:
        rows = conn.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
            "WHERE c.relname IN ('documents', 'ix_documents_search', 'search_postings', "
            "'search_segments') ORDER BY 1"
        ).fetchall()
        count = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        lexemes = conn.execute("SELECT count(*) FROM search_postings").fetchone()[0]
        database = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
    print(f"{count:,} documents; {lexemes:,} postings rows; database {database / 1e6:,.0f} MB")
    for name, size in rows:
        print(f"  {name:24s}{size / 1e6:10.1f} MB (with its indexes and TOAST)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    f = sub.add_parser("find")
    f.add_argument("before_root")
    f.add_argument("before_url")
    f.add_argument("after_url")
    f.add_argument("--rounds", type=int, default=5)
    f.add_argument("--topics", type=int, default=5)
    i = sub.add_parser("import")
    i.add_argument("before_root")
    i.add_argument("server_url", help="any database's URL on the server (a superuser's)")
    i.add_argument("--docs", type=int, default=10_000)
    i.add_argument("--rounds", type=int, default=3)
    s = sub.add_parser("size")
    s.add_argument("url")
    args = parser.parse_args()
    {"find": bench_find, "import": bench_import, "size": bench_size}[args.what](args)


if __name__ == "__main__":
    main()
