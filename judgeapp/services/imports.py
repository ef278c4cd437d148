"""Importing files into a project: read and validate with `formats`, then write with the
store in one transaction per call, so a failed import leaves the project exactly as it was."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judgeapp import formats
from judgeapp.records import Changes
from judgeapp.services.progress import ProgressFn, no_progress
from judgeapp.store import RunImport, Store
from judgeapp.store.topics import TopicExists

if TYPE_CHECKING:
    from judgeapp.formats.bulk import NumberedRuns


@dataclass(frozen=True, slots=True)
class ImportReport:
    kind: str
    files: int
    records: int  # topics, documents, ranked entries or judgments stored
    detail: str
    changes: Changes


def _sha256(path: str | Path) -> str:
    from judgeapp.formats.textio import open_bytes  # a pipe or FIFO: the bytes read once

    digest = hashlib.sha256()
    with open_bytes(path) as fh:
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
    *,
    replace: bool = False,
) -> ImportReport:
    """Topics from files, in one transaction. A topic the project has already keeps its
    statement unless `replace` (a different one is an error naming the file and line)."""
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
    try:
        changes = store.topics.put(topics, replace=replace)
    except TopicExists as exc:
        topic, path = next((t, p) for t, p in topics if t.qid == exc.qid)
        raise formats.FormatError(path, topic.line, str(exc)) from None
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

    count = store.documents.put(stream(), progress=lambda n: progress(n, None, "documents"))
    return ImportReport(
        "documents", len(paths), count, f"{count} documents", Changes(documents=True)
    )


def import_runs(
    store: Store,
    paths: Sequence[str | Path],
    names: Sequence[str] | None = None,
    *,
    fmt: str | None = None,
    replace: bool = False,
    progress: ProgressFn = no_progress,
    read: Callable[[], NumberedRuns | None] | None = None,
) -> ImportReport:
    """Read every run first (any error stops before the project is touched), then store
    them together. A run's name defaults to its tag. `read`, if given, returns the runs
    of `paths` read already, in order, with their docnos numbered, or None to have them
    read here (`import run` has forked processes read them while the project opens,
    and this one joins them;
    judgeapp.forked.ForkedAhead)."""
    if names is not None and len(names) != len(paths):
        raise ValueError("give one name per run file")
    from judgeapp.formats.bulk import read_run_columns
    from judgeapp.formats.detect import resolve_format

    def name(i: int) -> str | None:
        return None if names is None else names[i]

    numbered = None
    sha256s: list[str] | None = None
    if read is not None:
        if fmt is not None:  # only "trec" exists; each file's check names the file alone
            for path in paths:
                resolve_format(str(path), "run", fmt)
        progress(0, len(paths), "reading runs")
        # hashed while the runs are read elsewhere, not after, when the store waits for
        # them; a file that cannot be opened is left to its reader to say so, in its turn
        with contextlib.suppress(OSError):
            sha256s = [_sha256(path) for path in paths]
        numbered = read()
    if numbered is not None:
        if sha256s is None:  # a file could not be opened then, and can now
            sha256s = [_sha256(path) for path in paths]
        imports = [
            RunImport(run, name(i), sha256)
            for i, (run, sha256) in enumerate(zip(numbered.runs, sha256s, strict=True))
        ]
    else:
        imports = []
        for i, path in enumerate(paths):
            progress(i, len(paths), f"reading {Path(path).name}")
            if fmt is not None:
                resolve_format(str(path), "run", fmt)  # the reader checks the lines
            run = read_run_columns(path)  # columns: the store interns their docnos in bulk
            imports.append(RunImport(run, name(i), _sha256(path)))
    progress(len(paths), len(paths), "storing runs")
    docnos = None if numbered is None else numbered.docnos
    stored = store.runs.add(imports, replace=replace, docnos=docnos)
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
    changes = store.judgments.import_qrels(files, replace=replace)
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
    kinds = {a.name: a.kind for a in store.team.assessors()}
    grades = {g.grade for g in store.settings.scale()}
    topics = {t.qid for t in store.topics.all()}
    for i, path in enumerate(paths):
        progress(i, len(paths), f"reading {Path(path).name}")
        read = read_judgments(path, fmt)
        if assessor is None and any(r.assessor is None for r in read):
            first = next(r for r in read if r.assessor is None)
            raise formats.FormatError(
                path, first.line, "the judgment names no assessor (give --assessor NAME)"
            )
        for r in read:  # what the project refuses of people's judgments (schema 0006)
            name = r.assessor or assessor or ""
            if kinds.get(name, r.kind or kind) not in ("person", "adjudicator"):
                continue
            if r.grade not in grades:
                scale = ", ".join(str(g) for g in sorted(grades))
                raise formats.FormatError(
                    path,
                    r.line,
                    f"grade {r.grade} of {name!r} is not on the project's scale "
                    f"({scale}); an automatic judge's may be (--judge-kind automatic)",
                )
            if r.topic not in topics:
                raise formats.FormatError(
                    path,
                    r.line,
                    f"topic {r.topic!r} is not in the project (import its topics first)",
                )
        rows += read
    progress(len(paths), len(paths), "storing judgments")
    changes = store.judgments.put(rows, assessor=assessor, kind=kind)
    return ImportReport("judgments", len(paths), len(rows), f"{len(rows)} judgments", changes)
