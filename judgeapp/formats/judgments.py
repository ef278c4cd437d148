"""Judgments with every field, in and out: JSON Lines or CSV (`export judgments`, `import
judgments`), and TREC qrels with a fifth column for automatic judges (an LLM's or a crowd's
score, a probability of relevance, beside the grade).

A record: ``topic``, ``docno``, ``grade`` (required), ``assessor``, ``kind`` (person,
source, automatic, adjudicator), ``score``, ``note``, ``flagged``, ``time_spent`` (seconds),
``created_at``, ``updated_at`` (ISO 8601), ``origin`` (what made the last change: judge,
search, cli, import, undo, redo), ``found_by`` (how the document came to be judged: pool,
the default, or search) and ``query`` (what the search that found it was for). A file that
leaves out the assessor gets the one named on the command line.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any, TextIO

from judgeapp.formats.columns import (
    GRADE_LIMIT,
    GRADE_RANGE,
    has_column_space,
    has_odd_space,
    int_problem,
    is_comment,
    split_fields,
)
from judgeapp.formats.errors import FormatError, quoted
from judgeapp.formats.jsonrecords import iter_objects
from judgeapp.formats.textio import MAX_COLUMN_LINE, PathArg, head_text, open_text
from judgeapp.outputs import json_text
from judgeapp.records import JUDGMENT_FIELDS as FIELDS
from judgeapp.records import JudgmentLine

FOUND_BY = ("pool", "search")
KINDS = ("person", "source", "automatic", "adjudicator")
FORMATS = ("jsonl", "csv", "qrels")


def detect_format(path: PathArg) -> str:
    head = head_text(path)[1].lstrip()
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
        if key in ("topic", "docno") and has_column_space(value):
            raise FormatError(path, line, f"{key} {value!r} contains white space")
        return value

    def number(key: str, kind: type) -> Any:
        value = record.get(key)
        if value in (None, ""):
            return None
        if kind is int:
            return grade(key, value)
        try:
            out = float(value)
        except (TypeError, ValueError, OverflowError):
            out = math.nan
        if not math.isfinite(out):
            raise FormatError(path, line, f"{key} {quoted(str(value))} is not a number")
        return out

    def grade(key: str, value: Any) -> int:
        """An integer within the grade range: JSON integers (or floats such as 2.0) as they
        are, text as the qrels reader reads its grade column."""
        if isinstance(value, str):
            out, problem = int_problem(value.strip())
        elif isinstance(value, int | float) and not isinstance(value, bool):
            whole = isinstance(value, int) or value.is_integer()
            out, problem = None, "is not an integer"
            if whole and -GRADE_LIMIT <= value <= GRADE_LIMIT:
                out, problem = int(value), None
            elif whole:
                problem = f"is out of range ({GRADE_RANGE})"
        else:
            out, problem = None, "is not an integer"
        if out is None:
            raise FormatError(path, line, f"{key} {quoted(str(value))} {problem}")
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
    found_by = text("found_by") or "pool"
    if found_by not in FOUND_BY:
        raise FormatError(path, line, f"found_by {found_by!r} is not one of {', '.join(FOUND_BY)}")
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
        found_by=found_by,
        query=str(record["query"]) if record.get("query") not in (None, "") else None,
    )


def _from_json(path: PathArg) -> Iterator[JudgmentLine]:
    for line, value in iter_objects(path):
        if not isinstance(value, dict):
            raise FormatError(path, line, "expected a JSON object per judgment")
        yield _checked(path, line, value)


def _from_csv(path: PathArg) -> Iterator[JudgmentLine]:
    with open_text(path) as lines:
        reader = csv.DictReader(lines)
        try:
            header = reader.fieldnames or []
            missing = [f for f in ("topic", "docno", "grade") if f not in header]
            if missing:
                raise FormatError(path, 1, f"the header has no {missing[0]!r} column")
            for record in reader:
                if None in record:
                    raise FormatError(path, reader.line_num, "more values than header columns")
                values = {k: v for k, v in record.items() if v != ""}
                yield _checked(path, reader.line_num, values)
        except csv.Error as exc:  # a field over csv's size limit, a stray quote, ...
            raise FormatError(path, reader.line_num, f"not valid CSV: {exc}") from None


def _from_qrels(path: PathArg) -> Iterator[JudgmentLine]:
    with open_text(path, max_line=MAX_COLUMN_LINE) as lines:
        for number, raw in enumerate(lines, 1):
            fields = split_fields(raw, has_odd_space(raw))  # columns as the qrels reader's
            if not fields or is_comment(fields):
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
            out.write(json_text(row.record(), ensure_ascii=False) + "\n")
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


SEARCH_FIELDS = ("assessor", "topic", "scope", "query", "results", "at")


def write_searches(entries: Iterable[Any], out: TextIO, fmt: str = "jsonl") -> int:
    """Write a search log (records with the fields of SEARCH_FIELDS; `topic` is their
    `qid`) as JSON Lines or CSV; returns how many."""
    n = 0
    writer = None
    if fmt == "csv":
        writer = csv.DictWriter(out, fieldnames=SEARCH_FIELDS, lineterminator="\n")
        writer.writeheader()
    elif fmt != "jsonl":
        raise ValueError(f"cannot write searches as {fmt!r} (jsonl or csv)")
    for e in entries:
        record = {
            "assessor": e.assessor,
            "topic": e.qid,
            "scope": e.scope,
            "query": e.query,
            "results": e.results,
            "at": e.at.isoformat(),
        }
        if writer is None:
            out.write(json_text(record, ensure_ascii=False) + "\n")
        else:
            writer.writerow({k: "" if v is None else v for k, v in record.items()})
        n += 1
    return n
