"""Judgments with every field, in and out: JSON Lines or CSV (`export judgments`, `import
judgments`), and TREC qrels with a fifth column for automatic judges (an LLM's or a crowd's
score, a probability of relevance, beside the grade).

A record: ``topic``, ``docno``, ``grade`` (required), ``assessor``, ``kind`` (person,
source, automatic, adjudicator), ``score``, ``note``, ``flagged``, ``time_spent`` (seconds),
``created_at``, ``updated_at`` (ISO 8601), ``origin`` (what made the last change). A file
that leaves out the assessor gets the one named on the command line.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TextIO

from judgeapp.formats.errors import FormatError
from judgeapp.formats.jsonrecords import iter_objects
from judgeapp.formats.textio import PathArg, head_text, open_text

FIELDS = (
    "topic",
    "docno",
    "assessor",
    "kind",
    "grade",
    "score",
    "note",
    "flagged",
    "time_spent",
    "created_at",
    "updated_at",
    "origin",
)
KINDS = ("person", "source", "automatic", "adjudicator")
FORMATS = ("jsonl", "csv", "qrels")


@dataclass(frozen=True, slots=True)
class JudgmentLine:
    line: int
    topic: str
    docno: str
    grade: int
    assessor: str | None = None
    kind: str | None = None
    score: float | None = None
    note: str = ""
    flagged: bool = False
    time_spent: float = 0.0
    created_at: datetime | None = None
    updated_at: datetime | None = None
    origin: str | None = None

    def record(self) -> dict[str, Any]:
        """The JSON-able record written by `write_judgments`."""
        out: dict[str, Any] = {f: getattr(self, f) for f in FIELDS}
        for key in ("created_at", "updated_at"):
            if out[key] is not None:
                out[key] = out[key].isoformat()
        return out


def detect_format(path: PathArg) -> str:
    head = head_text(path).lstrip()
    if head.startswith(("{", "[")):
        return "jsonl"
    first = head.splitlines()[0] if head else ""
    return "csv" if first.split(",")[0].strip().strip('"') == "topic" else "qrels"


def read_judgments(path: PathArg, fmt: str | None = None) -> list[JudgmentLine]:
    """Every judgment of a file, checked; the first problem is a FormatError naming the
    file, the line and what is wrong."""
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise FormatError(path, None, f"unknown judgments format {fmt!r} (one of {FORMATS})")
    rows = {"jsonl": _from_json, "csv": _from_csv, "qrels": _from_qrels}[fmt](path)
    out: list[JudgmentLine] = []
    seen: dict[tuple[str, str, str | None], int] = {}
    for row in rows:
        key = (row.topic, row.docno, row.assessor)
        if key in seen:
            raise FormatError(
                path,
                row.line,
                f"topic {row.topic} document {row.docno}"
                + (f" by {row.assessor}" if row.assessor else "")
                + f" is judged on line {seen[key]} already",
            )
        seen[key] = row.line
        out.append(row)
    return out


def _checked(path: PathArg, line: int, record: dict[str, Any]) -> JudgmentLine:
    unknown = sorted(set(record) - set(FIELDS))
    if unknown:
        raise FormatError(path, line, f"unknown field {unknown[0]!r} (fields: {', '.join(FIELDS)})")
    for key in ("topic", "docno", "grade"):
        if record.get(key) in (None, ""):
            raise FormatError(path, line, f"the judgment has no {key}")

    def text(key: str) -> str | None:
        value = record.get(key)
        if value in (None, ""):
            return None
        if not isinstance(value, str | int) or isinstance(value, bool):
            raise FormatError(path, line, f"{key} must be text, not {value!r}")
        value = str(value)
        if any(c.isspace() for c in value) and key in ("topic", "docno"):
            raise FormatError(path, line, f"{key} {value!r} contains white space")
        return value

    def number(key: str, kind: type) -> Any:
        value = record.get(key)
        if value in (None, ""):
            return None
        out: int | float
        try:
            if kind is int:
                if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                    raise ValueError
                out = int(value) if not isinstance(value, str) else int(value.strip(), 10)
            else:
                out = float(value)
                if not math.isfinite(out):
                    raise ValueError
        except (TypeError, ValueError):
            raise FormatError(
                path, line, f"{key} {value!r} is not {'an integer' if kind is int else 'a number'}"
            ) from None
        return out

    def when(key: str) -> datetime | None:
        value = text(key)
        if value is None:
            return None
        try:
            stamp = datetime.fromisoformat(value)
        except ValueError:
            raise FormatError(path, line, f"{key} {value!r} is not an ISO 8601 time") from None
        return stamp.replace(tzinfo=None)

    flagged = record.get("flagged", False)
    if isinstance(flagged, str):
        if flagged.strip().lower() not in ("", "0", "1", "true", "false", "yes", "no"):
            raise FormatError(path, line, f"flagged {flagged!r} is not true or false")
        flagged = flagged.strip().lower() in ("1", "true", "yes")
    kind = text("kind")
    if kind is not None and kind not in KINDS:
        raise FormatError(path, line, f"kind {kind!r} is not one of {', '.join(KINDS)}")
    seconds = number("time_spent", float)
    if seconds is not None and seconds < 0:
        raise FormatError(path, line, f"time_spent {seconds} is negative")
    return JudgmentLine(
        line=line,
        topic=text("topic") or "",
        docno=text("docno") or "",
        grade=number("grade", int),
        assessor=text("assessor"),
        kind=kind,
        score=number("score", float),
        note=str(record.get("note") or ""),
        flagged=bool(flagged),
        time_spent=seconds or 0.0,
        created_at=when("created_at"),
        updated_at=when("updated_at"),
        origin=text("origin"),
    )


def _from_json(path: PathArg) -> Iterator[JudgmentLine]:
    for line, value in iter_objects(path):
        if not isinstance(value, dict):
            raise FormatError(path, line, "expected a JSON object per judgment")
        yield _checked(path, line, value)


def _from_csv(path: PathArg) -> Iterator[JudgmentLine]:
    with open_text(path) as lines:
        reader = csv.DictReader(lines)
        header = reader.fieldnames or []
        missing = [f for f in ("topic", "docno", "grade") if f not in header]
        if missing:
            raise FormatError(path, 1, f"the header has no {missing[0]!r} column")
        for record in reader:
            if None in record:
                raise FormatError(path, reader.line_num, "more values than header columns")
            yield _checked(path, reader.line_num, {k: v for k, v in record.items() if v != ""})


def _from_qrels(path: PathArg) -> Iterator[JudgmentLine]:
    with open_text(path) as lines:
        for number, raw in enumerate(lines, 1):
            fields = raw.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) not in (4, 5):
                raise FormatError(
                    path,
                    number,
                    f"expected 4 or 5 columns (qid iter docno grade [score]), found {len(fields)}",
                )
            record = {"topic": fields[0], "docno": fields[2], "grade": fields[3]}
            if len(fields) == 5:
                record["score"] = fields[4]
            yield _checked(path, number, record)


def write_judgments(rows: Iterable[JudgmentLine], out: TextIO, fmt: str = "jsonl") -> int:
    """Write every field of `rows` as JSON Lines or CSV; returns how many."""
    n = 0
    if fmt == "jsonl":
        for row in rows:
            out.write(json.dumps(row.record(), ensure_ascii=False) + "\n")
            n += 1
    elif fmt == "csv":
        writer = csv.DictWriter(out, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            record = row.record()
            writer.writerow({k: "" if v is None else v for k, v in record.items()})
            n += 1
    else:
        raise ValueError(f"cannot write judgments as {fmt!r} (jsonl or csv)")
    return n


def judgments_text(rows: Iterable[JudgmentLine], fmt: str = "jsonl") -> str:
    buffer = io.StringIO()
    write_judgments(rows, buffer, fmt)
    return buffer.getvalue()
