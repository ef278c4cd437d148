"""Document collections at TREC size: a synthetic TREC SGML collection (made here, not kept),
read by judgeapp against a plain-Python line parser of the same file into dicts, and
imported into a new project with its progress bar, MB/s and peak memory.

    python benchmarks/bench_documents.py [--docs 500000] [--rounds 3] [--keep DIR]

The collection looks like the TREC disks (FT, LA Times): ``<DOC>``, ``<DOCNO>``, a date,
a headline, a byline and a ``<TEXT>`` of paragraphs, about 3 KB a document, so 500,000
documents make about 1.5 GB. It is written to a temporary folder (or --keep DIR, reused
when already there) and removed afterwards.

Reading: each side is a fresh process reading the whole file, alternating, median of
--rounds; both build one dict per document (docno, title, text) and keep none, so memory
is that of the reading itself. Import: `python main.py import docs DB FILE` in a fresh
process on a new project, once each on the first tenth, the first half and all of the
collection, so that their peak RSS shows whether memory stays flat as the collection grows.
The peak is also split (sampled every 0.1 s) into its anonymous part, what the program
holds, and its file-backed part, which includes the WAL index SQLite maps for the one
transaction of the import (in any SQLite write of that size: about 0.5 MiB per GB imported
with a new project's 16 KiB pages, 2.5 MiB with 4 KiB pages).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from peak_rss import KindPeaks, PeakRss  # noqa: E402  (beside this file)

# The peer: a line parser a researcher would write for TREC SGML, one dict per document.
PEER = r"""
import sys
n = 0
doc = None
field = None
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        if line.startswith("<DOC>"):
            doc = {"docno": "", "title": [], "text": []}
        elif line.startswith("</DOC>"):
            doc["title"] = " ".join(doc["title"]).strip()
            doc["text"] = "".join(doc["text"]).strip()
            n += 1
            doc = None
        elif line.startswith("<DOCNO>"):
            doc["docno"] = line[7:line.index("</DOCNO>")].strip()
        elif line.startswith("<HEADLINE>"):
            field = "title"
            rest = line[10:]
            if "</HEADLINE>" in rest:
                doc["title"].append(rest[:rest.index("</HEADLINE>")])
                field = None
            else:
                doc["title"].append(rest)
        elif line.startswith("<TEXT>"):
            field = "text"
        elif line.startswith("</TEXT>") or line.startswith("</HEADLINE>"):
            field = None
        elif field == "text":
            if not line.startswith("<P>") and not line.startswith("</P>"):
                doc["text"].append(line)
        elif field == "title":
            doc["title"].append(line)
print(n)
"""

OURS = r"""
import sys
from judgeapp.formats import iter_documents
n = 0
for doc in iter_documents(sys.argv[1], "trec"):
    n += 1
print(n)
"""

WORDS = 5000


def write_collection(path: Path, n_docs: int, seed: int = 14) -> int:
    """A synthetic TREC SGML collection of ``n_docs`` documents; returns its size in bytes."""
    rng = np.random.default_rng(seed)
    letters = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)
    vocab = [
        bytes(letters[rng.integers(0, 26, rng.integers(2, 11))]).decode() for _ in range(WORDS)
    ]
    # a pool of paragraphs (lines of about 70 characters) sampled for every document
    zipf = np.minimum(rng.zipf(1.3, 2_000_000), WORDS) - 1
    cursor = 0
    paragraphs = []
    for _ in range(4000):
        lines = []
        for _ in range(int(rng.integers(3, 9))):
            words = [vocab[i] for i in zipf[cursor : cursor + 11]]
            cursor = (cursor + 11) % (len(zipf) - 11)
            lines.append(" ".join(words))
        paragraphs.append("<P>\n" + "\n".join(lines) + "\n</P>\n")
    headlines = [" ".join(vocab[i] for i in zipf[k * 7 : k * 7 + 7]).upper() for k in range(4000)]
    size = 0
    pick = rng.integers(0, 4000, size=(n_docs, 12))
    count = rng.integers(5, 12, size=n_docs)
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        buf: list[str] = []
        for i in range(n_docs):
            body = "".join(paragraphs[j] for j in pick[i, : count[i]])
            buf.append(
                f"<DOC>\n<DOCNO>SYN{i // 1000:04d}-{i % 1000:04d}</DOCNO>\n"
                f"<DATE>9{i % 10}{(i // 10) % 12 + 1:02d}{i % 28 + 1:02d}</DATE>\n"
                f"<HEADLINE>\n{headlines[pick[i, 11]]}\n</HEADLINE>\n"
                f"<BYLINE>By {vocab[i % WORDS].title()} {vocab[(i * 7) % WORDS].title()}</BYLINE>\n"
                f"<TEXT>\n{body}</TEXT>\n</DOC>\n"
            )
            if len(buf) == 2000:
                chunk = "".join(buf)
                size += len(chunk.encode())
                out.write(chunk)
                buf.clear()
        chunk = "".join(buf)
        size += len(chunk.encode())
        out.write(chunk)
    return size


def first_docs(src: Path, dst: Path, n_docs: int) -> None:
    """The first ``n_docs`` documents of a collection, as a file of their own."""
    with open(src, "rb") as f, open(dst, "wb") as out:
        seen = 0
        for line in f:
            out.write(line)
            if line.startswith(b"</DOC>"):
                seen += 1
                if seen == n_docs:
                    break


def run_timed(
    cmd: list[str], stdout: int | None = subprocess.PIPE, kinds: KindPeaks | None = None
) -> tuple[float, int, str]:
    """(wall seconds, peak RSS in MiB, stdout) of a fresh process; ``kinds``, if given,
    samples what its memory is made of meanwhile."""
    peak = PeakRss()  # the command's own peak, not this process's (see peak_rss)
    start = time.perf_counter()
    proc = subprocess.Popen(peak.wrap(cmd), stdout=stdout, stderr=None, cwd=ROOT)
    if kinds is not None:
        kinds.start(proc.pid)
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - start
    if kinds is not None:
        kinds.stop()
    out = proc.stdout.read().decode() if proc.stdout else ""
    if os.waitstatus_to_exitcode(status):
        sys.exit(f"failed: {' '.join(cmd[:4])}")
    return took, peak.mib(usage), out.strip()


def load() -> str:
    return f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=500_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="folder for the collection (kept, reused)")
    parser.add_argument("--no-import", action="store_true", help="time the reading only")
    parser.add_argument("--only-import", action="store_true", help="the imports only")
    args = parser.parse_args()
    print(load())
    with tempfile.TemporaryDirectory(prefix="bench-docs-") as tmp_name:
        folder = args.keep or Path(tmp_name)
        folder.mkdir(parents=True, exist_ok=True)
        coll = folder / f"synthetic-{args.docs}.sgml"
        if not coll.exists():
            start = time.perf_counter()
            write_collection(coll, args.docs)
            print(f"wrote {coll.name} in {time.perf_counter() - start:.0f} s")
        mb = coll.stat().st_size / 1e6
        print(f"collection: {args.docs:,} documents, {mb:,.0f} MB")

        py = sys.executable
        if not args.only_import:
            sides = {
                "judgeapp": [py, "-c", OURS, str(coll)],
                "peer": [py, "-c", PEER, str(coll)],
            }
            times: dict[str, list[float]] = {s: [] for s in sides}
            rss: dict[str, int] = {s: 0 for s in sides}
            for k in range(args.rounds):
                for side in list(sides) if k % 2 == 0 else list(sides)[::-1]:
                    took, peak, out = run_timed(sides[side])
                    if int(out) != args.docs:
                        sys.exit(f"{side} read {out} documents, not {args.docs}")
                    times[side].append(took)
                    rss[side] = max(rss[side], peak)
            ours, peer = statistics.median(times["judgeapp"]), statistics.median(times["peer"])
            print(f"\nreading, median of {args.rounds} alternated rounds (fresh processes)")
            print(
                f"  judgeapp iter_documents  {ours:7.1f} s  {mb / ours:6.0f} MB/s  {rss['judgeapp']:5} MiB"
            )
            print(
                f"  peer line parser         {peer:7.1f} s  {mb / peer:6.0f} MB/s  {rss['peer']:5} MiB"
            )
            print(f"  judgeapp is {peer / ours:.2f}x the peer's speed (target >= 2x)")
            for side in sides:
                print(f"  {side} rounds: {', '.join(f'{t:.1f}' for t in times[side])}")

        if not args.no_import:
            parts = []
            for label, share in (("a tenth", 10), ("half", 2)):
                part = folder / f"synthetic-{args.docs}-{label.split()[-1]}.sgml"
                if not part.exists():
                    first_docs(coll, part, args.docs // share)
                parts.append((label, part))
            print("\nimport docs into a new project (progress bar on stderr):")
            for label, path in [*parts, ("all", coll)]:
                db = folder / f"import-{label.replace(' ', '-')}.db"
                db.unlink(missing_ok=True)
                size = path.stat().st_size / 1e6
                cmd = [py, "main.py", "import", "docs", str(db), str(path), "--format", "trec"]
                cmd.append("--create")
                kinds = KindPeaks(watch=db.with_name(db.name + "-shm"))
                took, peak, _ = run_timed(cmd, stdout=subprocess.DEVNULL, kinds=kinds)
                print(
                    f"  {label:8} {size:7,.0f} MB  {took:7.1f} s  {size / took:6.1f} MB/s  "
                    f"peak RSS {peak} MiB: anonymous {kinds.anon / 1024:.1f} MiB, "
                    f"file-backed {kinds.file / 1024:.1f} MiB (the transaction's WAL index "
                    f"{kinds.watched / 2**20:.1f} MiB of it)"
                )
                db.unlink(missing_ok=True)
    print(load())
    return 0


if __name__ == "__main__":
    sys.exit(main())
