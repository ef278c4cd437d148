"""Every reader, on hypothesis-generated variants of valid files: it reads them, or it raises
a FormatError naming the file; never another exception, never for long.

The same file read from standard input by `judge` and from disk by the readers gives the
same lines (the line splitter of `judge` and the chunks of the readers are one rule), also
when the stream hands its bytes over one at a time.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgeapp.errors import UserError
from judgeapp.formats import FormatError, iter_documents, read_qrels, read_run, read_topics
from judgeapp.formats.judgments import read_judgments
from judgeapp.formats.textio import iter_stream_lines, open_text
from tests.hostile.mutations import KINDS, SOURCES, mutate, source

READERS = {
    "run": read_run,
    "qrels": read_qrels,
    "topics": read_topics,
    "docs": lambda path: list(iter_documents(path)),
    "judgments": read_judgments,
}
FUZZ = settings(
    max_examples=60,
    deadline=5000,  # ms per example: a mutation must not make a reader crawl
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

mutations = st.tuples(
    st.sampled_from(KINDS), st.floats(0, 1, exclude_max=True), st.integers(0, 1 << 16)
)


def read_or_refuse(kind: str, path: Path) -> object:
    """The reader's result, or None when it refused the file as it must: a FormatError
    (or another UserError) naming the file."""
    try:
        return READERS[kind](path)
    except FormatError as exc:
        assert exc.path == str(path)
        assert "\n" not in str(exc)
        return None
    except UserError as exc:  # pragma: no cover - readers raise FormatError only
        pytest.fail(f"{kind} reader raised {type(exc).__name__}: {exc}")


@pytest.mark.parametrize("kind", sorted(READERS))
@FUZZ
@given(mutation=mutations, index=st.integers(0, 3))
def test_a_mutated_file_is_read_or_refused_with_a_format_error(
    tmp_path_factory: pytest.TempPathFactory, kind: str, mutation: tuple, index: int
) -> None:
    original = source(kind, index)
    path = tmp_path_factory.mktemp(kind) / original.name
    path.write_bytes(mutate(original.read_bytes(), *mutation))
    read_or_refuse(kind, path)


@pytest.mark.parametrize("kind", sorted(READERS))
@FUZZ
@given(data=st.binary(max_size=2000))
def test_arbitrary_bytes_are_read_or_refused(
    tmp_path_factory: pytest.TempPathFactory, kind: str, data: bytes
) -> None:
    path = tmp_path_factory.mktemp(kind) / "input"
    path.write_bytes(data)
    read_or_refuse(kind, path)


class Trickle(io.RawIOBase):
    """A stream handing over at most `step` bytes per read (a pipe fed slowly)."""

    def __init__(self, data: bytes, step: int) -> None:
        self.data, self.step, self.at = data, step, 0

    def readable(self) -> bool:
        return True

    def read1(self, size: int = -1) -> bytes:
        out = self.data[self.at : self.at + min(self.step, size if size > 0 else self.step)]
        self.at += len(out)
        return out

    read = read1


def lines_of_file(path: Path) -> list[str] | str:
    try:
        with open_text(path, max_line=1 << 20) as lines:
            return [line[:-1] for line in lines]
    except FormatError as exc:
        return exc.problem


def lines_of_stream(data: bytes, step: int) -> list[str] | str:
    try:
        return [line for _, line in iter_stream_lines(Trickle(data, step), "stdin")]
    except FormatError as exc:
        return exc.problem


@FUZZ
@given(
    mutation=mutations,
    index=st.integers(0, 3),
    step=st.sampled_from([1, 2, 3, 7, 64, 1 << 16]),
)
def test_judge_reads_standard_input_as_the_readers_read_files(
    tmp_path_factory: pytest.TempPathFactory, mutation: tuple, index: int, step: int
) -> None:
    kind = ["judge", "run", "qrels", "judgments"][index]
    data = mutate(source(kind, 0).read_bytes(), *mutation)
    if data[:2] == b"\x1f\x8b":  # compressed files are for the readers, not for stdin
        return
    path = tmp_path_factory.mktemp("same") / "input"
    path.write_bytes(data)
    if len(data) > 100_000:  # a megabyte line, one byte per read, takes seconds: fine, but
        step = max(step, 4096)  # not a hundred times over
    assert lines_of_stream(data, step) == lines_of_file(path)


@pytest.mark.parametrize(
    ("kind", "index"),
    [(kind, i) for kind in sorted(READERS) for i in range(len(SOURCES[kind]))],
)
def test_every_fixture_is_valid(kind: str, index: int) -> None:
    """The mutations start from files the readers take as they are."""
    assert read_or_refuse(kind, source(kind, index)) is not None
