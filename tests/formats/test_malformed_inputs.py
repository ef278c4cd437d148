"""Every file of the malformed corpus gives its clear error: file, line and problem."""

from __future__ import annotations

import re

import pytest
from malformed_cases import CASES, MALFORMED

from judgeapp.formats import (
    FormatError,
    detect_format,
    read_documents,
    read_qrels,
    read_run,
    read_topics,
)

READERS = {"run": read_run, "qrels": read_qrels, "topics": read_topics, "docs": read_documents}


@pytest.mark.parametrize(("name", "kind", "expected"), CASES, ids=[c[0] for c in CASES])
def test_malformed_file_gives_its_error(name: str, kind: str, expected: str) -> None:
    path = MALFORMED / name
    with pytest.raises(FormatError) as caught:
        READERS[kind](path)
    message = str(caught.value)
    assert message.startswith(str(path))
    assert expected in message
    assert caught.value.path == str(path)


def test_every_corpus_file_has_a_case() -> None:
    files = {p.name for p in MALFORMED.iterdir() if p.suffix != ".py"}
    assert files == {name for name, _, _ in CASES}


@pytest.mark.parametrize(
    ("name", "expected"),
    [(name, expected) for name, _, expected in CASES if "at byte" in expected],
)
def test_byte_offsets_in_the_manifest_are_where_the_bad_byte_is(name: str, expected: str) -> None:
    """The offsets and lines of the encoding cases, found here by a plain byte search."""
    data = (MALFORMED / name).read_bytes()
    at, line = map(int, re.search(r"at byte (\d+) \(line (\d+)\)", expected).groups())
    if "NUL" in expected:
        bad = data.index(b"\x00")
    else:
        bad = next(i for i, b in enumerate(data) if b >= 0x80)
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            bad = 0
    assert (at, line) == (bad, data[:bad].count(b"\n") + 1)


def test_errors_come_with_a_line_attribute() -> None:
    with pytest.raises(FormatError) as caught:
        read_run(MALFORMED / "run_bad_score.txt")
    assert (caught.value.line, caught.value.problem) == (2, "score 'abc' is not a number")


@pytest.mark.parametrize("kind", ["run", "qrels", "topics", "docs"])
def test_detection_of_an_empty_file_says_what_was_expected(kind: str) -> None:
    with pytest.raises(FormatError, match="expected"):
        detect_format(MALFORMED / "run_empty.txt", kind)
