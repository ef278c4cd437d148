"""The hostile-input corpus (tests/data/hostile/cases.toml): loading it, making the inputs too
large to commit, preparing each case's project (a fresh copy of a template, or a damaged
one), running a case in the fork server and judging what came back.

`run_case` returns a `Verdict`: the runner's `Outcome` and the problems found, each a
sentence; a case passes when there are none. Its `kind` is what the closing table counts:
`ok`, `error`, `traceback`, `hang`, `abort`, `unclear` (exit or stderr of no known form) or
`altered` (the process ended well but the project, an output or a `judge` report is wrong).
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import hashlib
import inspect
import io
import json
import lzma
import os
import random
import shutil
import stat
import tomllib
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tests.hostile.runner import MEMORY_LIMIT, ForkServer, Outcome

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "data" / "hostile"
BASE = HOSTILE / "base"
FILES = HOSTILE / "files"
ASSESSOR = "alice"
# generated inputs are kept between cases and runs (a 2 GiB bomb takes seconds to make)
CACHE = Path(os.environ.get("JUDGEAPP_HOSTILE_CACHE", "/tmp/judgeapp-hostile-cache"))


@dataclass(frozen=True)
class Case:
    id: str
    category: str
    argv: list[str]
    expect: str
    message: str = ""
    file: str | None = None
    make: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    stdin: str | None = None
    project: str = "template"
    setup: list[list[str]] = field(default_factory=list)
    file_size: int | None = None
    out: str | None = None
    out_before: str | None = None
    out_equals: str | None = None
    judge: bool = False
    recorded: list[str] | None = None
    unchanged: bool = False  # also on success (a command that must never write)
    slow: bool = False
    # smaller sizes for the test suite (the probe uses `args`: the sizes of the issue)
    test_args: dict[str, Any] = field(default_factory=dict)

    def for_tests(self) -> Case:
        return replace(self, args={**self.args, **self.test_args}) if self.test_args else self


def load_cases() -> list[Case]:
    data = tomllib.loads((HOSTILE / "cases.toml").read_text(encoding="utf-8"))
    return [Case(**entry) for entry in data["case"]]


# -- inputs too large to commit --------------------------------------------------------------
def _cached(name: str, args: dict[str, Any], write) -> Path:
    recipe = inspect.getsource(RECIPES[name]) if name in RECIPES else ""
    key = json.dumps([name, args, recipe], sort_keys=True)
    key = hashlib.sha256(key.encode()).hexdigest()[:16]
    path = CACHE / f"{name}-{key}{args.get('suffix_name', '')}"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        part = path.with_name(path.name + f".part{os.getpid()}")
        with open(part, "wb") as fh:
            write(fh)
        os.replace(part, path)
    return path


def long_line(fh, size: int, prefix: str, suffix: str = "") -> None:
    """`prefix`, then `x` up to `size` bytes with no line end, then `suffix`."""
    head = prefix.encode()
    fh.write(head)
    block = b"x" * (1 << 20)
    left = size - len(head)
    while left > 0:
        fh.write(block[: min(left, len(block))])
        left -= len(block)
    fh.write(suffix.encode())


def gzip_bomb(fh, size: int, line: str, distinct: bool = False) -> None:
    """`size` bytes of `line` repeated (or numbered D1, D2, ... when `distinct`), gzipped."""
    out = zlib.compressobj(9, zlib.DEFLATED, 31)
    if distinct:
        # distinct docnos do not repeat, but their lines still compress well: count in a
        # few digits and pad with a long tag that repeats
        qid = 401
        tag = "r" + "x" * 400
        made = 0
        n = 0
        while made < size:
            rows = "".join(f"{qid} Q0 D{n + i} 1 1 {tag}\n" for i in range(1000)).encode()
            n += 1000
            fh.write(out.compress(rows))
            made += len(rows)
    else:
        block = line.encode() * ((1 << 20) // len(line))
        for _ in range(size // len(block) + 1):
            fh.write(out.compress(block))
    fh.write(out.flush())


def bzip2_bomb(fh, size: int, line: str) -> None:
    """bzip2 is slow on repeated lines (its sort degenerates): use it on runs of one byte."""
    _bomb(fh, bz2.BZ2Compressor(9), size, line)


def xz_bomb(fh, size: int, line: str) -> None:
    _bomb(fh, lzma.LZMACompressor(preset=6), size, line)


def _bomb(fh, out, size: int, line: str) -> None:
    block = line.encode() * ((1 << 22) // len(line))
    for _ in range(size // len(block) + 1):
        fh.write(out.compress(block))
    fh.write(out.flush())


def deep_json(fh, depth: int, open: str, inner: str | None = None) -> None:
    """A JSON value nested `depth` deep: `open` then `inner` repeated (arrays by default)."""
    inner = inner or open
    closing = {"[": "]", "{": "}"}
    fh.write(open.encode())
    fh.write(inner.encode() * depth)
    fh.write(b"1")
    fh.write(("}" if inner.startswith("{") else "]").encode() * depth)
    fh.write(closing[open[0]].encode() + b"\n")


def leading_lines(fh, source: str, count: int, line: str, rename: str = "") -> None:
    """`count` copies of `line`, then base/`source` (with ids renamed `old:new,...`)."""
    text = (BASE / source).read_text(encoding="utf-8")
    for pair in filter(None, rename.split(",")):
        old, new = pair.split(":")
        text = text.replace(old, new)
    fh.write(line.encode() * count + text.encode())


def unclosed_doc(fh, size: int) -> None:
    fh.write(b"<DOC>\n<DOCNO> X1 </DOCNO>\n<TEXT>\n")
    row = b"words words words words words words words words words words words words\n"
    for _ in range(size // len(row)):
        fh.write(row)


def many_docs(fh, count: int) -> None:
    for i in range(count):
        fh.write(f'{{"docno": "M{i}", "title": "t{i}", "text": "{"w " * 20}"}}\n'.encode())


def many_qrels(fh, count: int, random_ids: bool = False, **_: Any) -> None:
    rng = random.Random(13)
    for i in range(count):
        docno = f"R{rng.getrandbits(64):x}" if random_ids else f"Q{i}"
        fh.write(f"{401 + i % 3} 0 {docno} {i % 3}\n".encode())


RECIPES = {
    "long_line": long_line,
    "gzip_bomb": gzip_bomb,
    "bzip2_bomb": bzip2_bomb,
    "xz_bomb": xz_bomb,
    "deep_json": deep_json,
    "leading_lines": leading_lines,
    "unclosed_doc": unclosed_doc,
    "many_docs": many_docs,
    "many_qrels": lambda fh, count, random=False: many_qrels(fh, count, random),
}


def input_file(case: Case) -> Path | None:
    if case.make is not None:
        recipe = RECIPES[case.make]
        return _cached(case.make, case.args, lambda fh: recipe(fh, **case.args))
    if case.file is None:
        return None
    return Path(case.file) if case.file.startswith("/") else FILES / case.file


# -- projects --------------------------------------------------------------------------------
def build_template(path: Path) -> Path:
    """A small project: three topics, six documents, two runs, a qrels source, a depth-10
    pool and two judgments by alice. Built through the command line."""
    from judgeapp.cli import main

    db = str(path)
    _init_through_migrations(db)
    steps = [
        ["import", "topics", db, str(BASE / "topics.tsv")],
        ["import", "docs", db, str(BASE / "docs.jsonl")],
        ["import", "run", db, str(BASE / "run.txt"), str(BASE / "run2.txt")],
        ["import", "qrels", db, str(BASE / "qrels.txt")],
        ["pool", db, "--depth", "10", "--name", "depth-10"],
    ]
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        for argv in steps:
            if main(argv) != 0:
                raise RuntimeError(f"template step {argv} failed: {sink.getvalue()}")
        from judgeapp.services.judging import JudgingService
        from judgeapp.store import Store

        with Store.open(db, create=False) as store:
            service = JudgingService(store, ASSESSOR)
            service.record("401", "D1", 2, note="on topic")
            service.record("402", "D6", 0)
    return path


def _init_through_migrations(db: str) -> None:
    """`init`, with the schema made by replaying Alembic's migrations, as every project was
    made before migrations/head_sqlite.sql: the same schema, but the page layout that the
    damage cases of the corpus (byte offsets, seeds of flipped bytes) were found on."""
    from judgeapp.store import Store
    from judgeapp.store.locking import begin_write
    from judgeapp.store.schema import create_project_engine, database_url, migrate

    engine = create_project_engine(database_url(db))
    try:
        with begin_write(engine) as conn:
            migrate(conn)
    finally:
        engine.dispose()
    Store.open(db).close()


def is_root() -> bool:
    return os.geteuid() == 0


def prepare_project(kind: str, template: Path, folder: Path) -> Path:
    """The case's project at folder/p.db: a copy of the template, or damaged as `kind`."""
    db = folder / "p.db"
    if kind == "none":
        return db
    if kind == "directory":
        db.mkdir()
        return db
    if kind == "text":
        db.write_text("topic docno grade\n401 D1 2\n")
        return db
    if kind == "zero":
        db.write_bytes(b"")
        return db
    if kind == "gzip":
        db.write_bytes((FILES / "not_a_project.gz").read_bytes())
        return db
    if kind in ("foreign", "empty-sqlite"):  # another program's database; one with no tables
        import sqlite3

        with contextlib.closing(sqlite3.connect(db)) as conn:
            conn.execute("CREATE TABLE notes (x)")
            if kind == "empty-sqlite":
                conn.execute("DROP TABLE notes")
            else:
                conn.execute("INSERT INTO notes VALUES ('kept as it is')")
            conn.commit()
        return db
    data = template.read_bytes()
    if kind == "truncated":
        data = data[: len(data) // 3]
    elif kind == "overwritten":
        # four random pages overwritten (the header page kept, so SQLite opens it)
        rng = random.Random(13)
        buf = bytearray(data)
        page = int.from_bytes(data[16:18], "big")  # the file's page size, from its header
        for _ in range(4):
            at = rng.randrange(1, len(buf) // page) * page
            buf[at : at + page] = rng.randbytes(page)
        data = bytes(buf)
    db.write_bytes(data)
    if kind == "readonly-file":  # in a folder anyone may write to
        db.chmod(0o444)
        folder.chmod(0o777)
    elif kind == "readonly-dir":
        db.chmod(0o444)
        folder.chmod(0o555)
    return db


def snapshot(db: Path) -> dict[str, str]:
    """Every file that makes the project, by content (the lock file and SQLite's shared
    memory index are not part of it)."""
    out: dict[str, str] = {}
    if db.is_dir():
        return {"<dir>": ""}
    for path in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-journal")):
        if path.exists() and path.is_file():
            out[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


# -- one case --------------------------------------------------------------------------------
@dataclass
class Verdict:
    case: Case
    outcome: Outcome | None
    problems: list[str]

    @property
    def kind(self) -> str:
        if self.outcome is None:
            return "setup"
        kind = self.outcome.kind
        if kind in ("ok", "error") and any(p.startswith("altered") for p in self.problems):
            return "altered"
        return kind

    @property
    def passed(self) -> bool:
        return not self.problems

    def report(self) -> str:
        shown = self.outcome.describe() if self.outcome else "(no outcome)"
        return f"{self.case.id}: " + "; ".join(self.problems) + f"\n{shown}"


def _fill(text: str, names: dict[str, str]) -> str:
    for key, value in names.items():
        text = text.replace("{" + key + "}", value)
    return text


def run_case(
    server: ForkServer,
    case: Case,
    template: Path,
    folder: Path,
    *,
    seconds: float = 60.0,
    memory: int = MEMORY_LIMIT,
) -> Verdict:
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    db = prepare_project(case.project, template, folder)
    file = input_file(case)
    names = {
        "db": str(db),
        "url": f"sqlite:///{db}",
        "base": str(BASE),
        "files": str(FILES),
        "tmp": str(folder),
        "file": str(file) if file else "",
    }
    logs = folder / ".logs"
    logs.mkdir(exist_ok=True)
    logs.chmod(0o777)
    problems: list[str] = []
    for step in case.setup:
        done = server.run([_fill(a, names) for a in step], logs)
        if done.kind != "ok":
            return Verdict(case, done, [f"setup {step[0]} failed: {done.describe()}"])
    out = Path(_fill(case.out, names)) if case.out else None
    if out is not None and case.out_before is not None:
        out.write_text(case.out_before)
    stdin = None
    if case.stdin is not None:
        stdin = _fill(case.stdin, names)
        stdin = stdin if stdin.startswith("/") else str(FILES / stdin)
    before = snapshot(db)
    # a read-only project means nothing to root: the command then runs as nobody
    as_nobody = case.project.startswith("readonly") and is_root()
    outcome = server.run(
        [_fill(a, names) for a in case.argv],
        logs,
        stdin=stdin,
        file_size=case.file_size,
        seconds=seconds,
        memory=memory,
        user=65534 if as_nobody else None,
    )
    if case.project.startswith("readonly"):
        folder.chmod(0o755)
    kind = outcome.kind
    if kind not in ("ok", "error"):
        problems.append(f"{kind}")
    elif case.expect != "either" and kind != case.expect:
        problems.append(f"expected {case.expect}, got {kind}")
    if kind == "error" and case.message:
        wanted = _fill(case.message, names)
        assert outcome.error_line is not None
        if wanted not in outcome.error_line:
            problems.append(f"message lacks {wanted!r}")
    # `judge` keeps the lines it recorded before a bad line (checked below); otherwise a
    # failed command leaves the project as it was, to the byte
    kept = case.judge and recorded_lines(outcome.stdout)
    if (kind != "ok" or case.unchanged) and not kept and snapshot(db) != before:
        problems.append("altered: the project changed")
    if out is not None:
        problems += _check_output(case, out, kind)
    if case.judge:
        problems += _check_judge(case, db, outcome)
    return Verdict(case, outcome, problems)


def _check_output(case: Case, out: Path, kind: str) -> list[str]:
    if kind == "ok":
        if not out.exists():
            return ["altered: the output was not written"]
        if case.out_equals is not None:
            # the same (qid, docno, grade) rows; lines split on \n only (an id may hold
            # characters str.splitlines would split on)
            def rows(text: str) -> list[str]:
                return sorted(
                    " ".join(r.split(" ")[i] for i in (0, 2, 3)) for r in text.split("\n") if r
                )

            want = (FILES / case.out_equals).read_text(encoding="utf-8")
            got = out.read_text(encoding="utf-8")
            if rows(want) != rows(got):
                return [f"altered: the output holds {got!r}, not the rows of {case.out_equals}"]
        return []
    left = [p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")]
    if left:
        return [f"altered: temporary files left beside the output: {left}"]
    if case.out_before is not None:
        if out.is_dir() or (out.read_text() if out.exists() else None) != case.out_before:
            return ["altered: the old output was changed"]
    elif out.exists():
        return ["altered: a failed command left an output file"]
    return []


def recorded_lines(stdout: str) -> list[str]:
    """The `qid docno grade` of each `recorded` line (split on newlines only: a docno may
    hold characters str.splitlines splits on)."""
    prefix = "recorded "
    return [line[len(prefix) :] for line in stdout.split("\n") if line.startswith(prefix)]


def last_grades(lines: list[str]) -> dict[tuple[str, str], str]:
    """The grade each (qid, docno) has after `qid docno grade` lines in order: what the
    store must hold once they are recorded (a line judged twice keeps its last grade)."""
    out: dict[tuple[str, str], str] = {}
    for line in lines:
        qid, docno, grade = line.split(" ")
        out[qid, docno] = grade
    return out


def _check_judge(case: Case, db: Path, outcome: Outcome) -> list[str]:
    """What `judge` printed as recorded is exactly what the store holds for its assessor."""
    printed = recorded_lines(outcome.stdout)
    problems = []
    if case.recorded is not None and printed != case.recorded:
        problems.append(f"altered: printed {printed!r}, expected {case.recorded!r}")
    assessor = case.argv[case.argv.index("--assessor") + 1]
    stored = stored_judgments(db, assessor)
    if last_grades(printed) != last_grades(stored):
        problems.append(f"altered: printed {printed!r} but the store holds {stored!r}")
    return problems


def stored_judgments(db: Path, assessor: str) -> list[str]:
    """`qid docno grade` of every judgment of `assessor` (read with SQLite itself, so a
    damaged project reads as far as it can)."""
    import sqlite3

    if not db.is_file() or db.stat().st_size == 0:
        return []
    # a read-write connection: a read-only one would leave an empty -wal file behind
    try:
        with contextlib.closing(sqlite3.connect(db)) as conn:
            rows = conn.execute(
                "SELECT j.qid, d.docno, j.grade FROM judgments j JOIN docnos d ON d.id = j.doc_id "
                "JOIN assessors a ON a.id = j.assessor_id WHERE a.name = ?",
                (assessor,),
            ).fetchall()
    except (sqlite3.DatabaseError, UnicodeDecodeError):  # too damaged to hold any
        return []
    return [f"{q} {d} {g}" for q, d, g in rows]


def file_mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def clean(folder: Path) -> None:
    """Remove a case folder, read-only parts included."""
    for p in [folder, *folder.rglob("*")]:
        with contextlib.suppress(OSError):
            if p.is_dir() and not p.is_symlink():
                p.chmod(0o755)
    shutil.rmtree(folder, ignore_errors=True)


# re-exported for the benchmark and the tests
__all__ = [
    "ASSESSOR",
    "BASE",
    "FILES",
    "Case",
    "Verdict",
    "build_template",
    "clean",
    "load_cases",
    "prepare_project",
    "run_case",
    "snapshot",
]
_ = gzip  # the recipes write gzip through zlib (kept importable for mutations)
