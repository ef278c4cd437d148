"""Importing files into a project: read and validate with `formats`, then write with the
store in one transaction per call, so a failed import leaves the project exactly as it was."""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
import os
import signal
import stat
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judgeapp import formats
from judgeapp.formats.bulk import RunColumns, read_run_columns
from judgeapp.records import Changes
from judgeapp.services.progress import ProgressFn, no_progress

if TYPE_CHECKING:  # the store (SQLAlchemy) is imported while runs are read ahead
    from judgeapp.store import Store


@dataclass(frozen=True, slots=True)
class ImportReport:
    kind: str
    files: int
    records: int  # topics, documents, ranked entries or judgments stored
    detail: str
    changes: Changes


def _sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _name(path: str | Path) -> str:
    """A file's name, or the whole ``irds:DATASET_ID``."""
    text = str(path)
    return text if text.startswith("irds:") else Path(path).name


def import_topics(
    store: Store,
    paths: Sequence[str | Path],
    fmt: str | None = None,
    progress: ProgressFn = no_progress,
) -> ImportReport:
    from judgeapp.formats.irds import irds_topics, is_irds

    topics: list[tuple[formats.Topic, str]] = []
    for i, path in enumerate(paths):
        progress(i, len(paths), f"reading {_name(path)}")
        found = irds_topics(str(path)) if is_irds(path) else formats.read_topics(path, fmt)
        topics.extend((t, str(path)) for t in found)
    seen: dict[str, str] = {}
    for topic, path in topics:
        if topic.qid in seen:
            raise formats.FormatError(
                path, topic.line, f"topic {topic.qid} is also defined in {seen[topic.qid]}"
            )
        seen[topic.qid] = path
    progress(len(paths), len(paths), "storing topics")
    changes = store.put_topics(topics)
    return ImportReport("topics", len(paths), len(topics), f"{len(topics)} topics", changes)


def import_documents(
    store: Store,
    paths: Sequence[str | Path],
    fmt: str | None = None,
    progress: ProgressFn = no_progress,
) -> ImportReport:
    from judgeapp.formats.irds import irds_documents, is_irds

    def stream() -> Iterator[tuple[formats.Document, str]]:
        for path in paths:
            # docnos are checked for duplicates by the store, in constant memory
            docs = (
                irds_documents(str(path))
                if is_irds(path)
                else formats.iter_documents(path, fmt, unique=False)
            )
            for doc in docs:
                yield doc, str(path)

    count = store.put_documents(stream(), progress=lambda n: progress(n, None, "documents"))
    return ImportReport(
        "documents", len(paths), count, f"{count} documents", Changes(documents=True)
    )


def _read_in_worker(path: str) -> RunColumns | None:
    """A run read in a worker process; None when it fails (or is no regular file, which
    only this process may read): the importing process then reads it itself, so that the
    error raised is exactly the reader's."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        return read_run_columns(path)
    except Exception:
        return None


def _worker_started() -> None:
    # Ctrl-C is the importing process's to handle (it stops the workers): a worker that
    # took it too would print its own traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _can_fork() -> bool:
    # fork only: a worker must start at once, without importing anything again (macOS's
    # fork is unsafe with its system libraries, Windows has none)
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


class RunReading:
    """Run files being read ahead, in order: with ``processes`` > 1, forked worker processes
    read them (on other cores, while this process imports the store and opens the project);
    iterating gives each file's columns in the order of ``paths``. Whatever a worker could
    not read is read again here, where any error is raised. ``close`` stops the workers."""

    def __init__(self, paths: Sequence[str | Path], processes: int = 1) -> None:
        self.paths = [os.fspath(p) for p in paths]
        self._pool = None
        self._ahead: Iterator[RunColumns | None] | None = None
        self.workers = min(processes, len(self.paths)) if _can_fork() else 1
        if self.workers > 1:
            context = multiprocessing.get_context("fork")
            self._pool = context.Pool(self.workers, initializer=_worker_started)
            self._ahead = self._pool.imap(_read_in_worker, self.paths)

    def __iter__(self) -> Iterator[RunColumns]:
        for path in self.paths:
            got = next(self._ahead) if self._ahead is not None else None
            # columns: the store interns their docnos in bulk
            yield got if got is not None else read_run_columns(path)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = self._ahead = None

    def __enter__(self) -> RunReading:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def import_runs(
    store: Store,
    paths: Sequence[str | Path],
    names: Sequence[str] | None = None,
    *,
    fmt: str | None = None,
    replace: bool = False,
    progress: ProgressFn = no_progress,
    reading: RunReading | None = None,
) -> ImportReport:
    """Read every run first (any error stops before the project is touched), then store
    them together. A run's name defaults to its tag. ``reading``: the same paths, being
    read ahead already (by default they are read here, one after another)."""
    if names is not None and len(names) != len(paths):
        raise ValueError("give one name per run file")
    from judgeapp.formats.detect import resolve_format
    from judgeapp.store import RunImport

    imports = []
    with contextlib.ExitStack() as stack:
        if reading is None:
            reading = stack.enter_context(RunReading(paths))
        elif reading.paths != [os.fspath(p) for p in paths]:
            raise ValueError("the runs read ahead are not these paths")
        runs = iter(reading)
        for i, path in enumerate(paths):
            progress(i, len(paths), f"reading {Path(path).name}")
            if fmt is not None:
                resolve_format(str(path), "run", fmt)  # only "trec" exists; the reader checks
            run = next(runs)
            imports.append(RunImport(run, None if names is None else names[i], _sha256(path)))
    progress(len(paths), len(paths), "storing runs")
    stored = store.add_runs(imports, replace=replace)
    entries = sum(r.n_entries for r in stored)
    return ImportReport(
        "runs",
        len(paths),
        entries,
        f"{len(stored)} runs, {entries} ranked entries",
        Changes(runs=True),
    )


def import_qrels(
    store: Store,
    paths: Sequence[str | Path],
    sources: Sequence[str] | None = None,
    *,
    fmt: str | None = None,
    replace: bool = False,
    progress: ProgressFn = no_progress,
) -> ImportReport:
    """Qrels become judgments of a named source (default: the file's name)."""
    if sources is not None and len(sources) != len(paths):
        raise ValueError("give one source name per qrels file")
    from judgeapp.formats.irds import irds_qrels, is_irds

    files = []
    for i, path in enumerate(paths):
        progress(i, len(paths), f"reading {_name(path)}")
        source = sources[i] if sources is not None else _name(path)
        qrels = irds_qrels(str(path)) if is_irds(path) else formats.read_qrels(path, fmt)
        files.append((qrels, source))
    progress(len(paths), len(paths), "storing judgments")
    changes = store.import_qrels(files, replace=replace)
    count = sum(len(q) for q, _ in files)
    return ImportReport("qrels", len(paths), count, f"{count} judgments", changes)


def import_judgments(
    store: Store,
    paths: Sequence[str | Path],
    *,
    assessor: str | None = None,
    kind: str = "person",
    fmt: str | None = None,
    progress: ProgressFn = no_progress,
) -> ImportReport:
    """Judgments with every field (`export judgments`), or an automatic judge's qrels with a
    score column, as judgments of the assessors they name (or `assessor`, of `kind`)."""
    from judgeapp.formats.judgments import read_judgments

    rows = []
    for i, path in enumerate(paths):
        progress(i, len(paths), f"reading {Path(path).name}")
        read = read_judgments(path, fmt)
        if assessor is None and any(r.assessor is None for r in read):
            first = next(r for r in read if r.assessor is None)
            raise formats.FormatError(
                path, first.line, "the judgment names no assessor (give --assessor NAME)"
            )
        rows += read
    progress(len(paths), len(paths), "storing judgments")
    changes = store.put_judgments(rows, assessor=assessor, kind=kind)
    return ImportReport("judgments", len(paths), len(rows), f"{len(rows)} judgments", changes)
