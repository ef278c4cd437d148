"""Hostile variants of valid files: the mutations the fuzzing tests draw (with hypothesis)
and the probe draws (with a seeded random generator), from the valid fixtures in
tests/data/hostile/base/.

A mutation is `(kind, at, value)`: `kind` one of `KINDS`, `at` a position as a fraction of
the file (0 <= at < 1), `value` a small integer choosing among the variants of the kind.
`mutate(data, kind, at, value)` is a pure function of them, so a failure found by either
side can be replayed by hand.
"""

from __future__ import annotations

import gzip
import random
from pathlib import Path

from tests.hostile.cases import BASE

# valid inputs by what reads them: (file under base/, reader kind)
SOURCES: dict[str, list[str]] = {
    "run": ["run.txt", "run2.txt"],
    "qrels": ["qrels.txt"],
    "topics": ["topics.tsv", "topics.sgml", "topics.xml"],
    "docs": ["docs.jsonl", "docs.sgml", "docs.smart", "docs.tsv"],
    "judgments": ["judgments.jsonl", "judgments.csv", "qrels.txt"],
    "judge": ["judge.txt"],
}

HUGE = [
    b"9223372036854775807",
    b"-9223372036854775808",
    b"18446744073709551616",
    b"99999999999999999999999999",
    b"1e999",
    b"-1e999",
    b"nan",
    b"inf",
    b"1_000",
    b"\xd9\xa2",  # an Arabic-Indic digit
    b"0x10",
    b"1001",
    b"-0",
    b"+7",
]

KINDS = (
    "truncate",
    "flip",
    "nul",
    "cr_only",
    "crlf",
    "mixed_line_ends",
    "bom",
    "bom_inside",
    "huge_number",
    "long_line",
    "deep_nesting",
    "duplicate_line",
    "drop_line",
    "blank_lines",
    "random_bytes",
    "latin1",
    "gzip",
    "gzip_truncated",
    "markup",
)


def _pos(data: bytes, at: float) -> int:
    return min(len(data), int(at * (len(data) + 1)))


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def mutate(data: bytes, kind: str, at: float, value: int) -> bytes:
    """`data` changed by one mutation (see the module doc)."""
    p = _pos(data, at)
    rng = random.Random(value)
    if kind == "truncate":
        return data[:p]
    if kind == "flip":
        if not data:
            return bytes([value & 0xFF])
        p = min(p, len(data) - 1)
        return data[:p] + bytes([data[p] ^ (1 + value % 255)]) + data[p + 1 :]
    if kind == "nul":
        return data[:p] + b"\x00" + data[p:]
    if kind == "cr_only":
        return data.replace(b"\n", b"\r")
    if kind == "crlf":
        return data.replace(b"\n", b"\r\n")
    if kind == "mixed_line_ends":
        ends = [b"\n", b"\r\n", b"\r"]
        return b"".join(line + ends[rng.randrange(3)] for line in _lines(data))
    if kind == "bom":
        return b"\xef\xbb\xbf" + data
    if kind == "bom_inside":
        return data[:p] + b"\xef\xbb\xbf" + data[p:]
    if kind == "huge_number":
        # replace the token that holds position p (a number in a numeric column, mostly)
        start = max(data.rfind(b" ", 0, p), data.rfind(b"\t", 0, p), data.rfind(b"\n", 0, p))
        end_candidates = [i for i in (data.find(b" ", p), data.find(b"\n", p)) if i >= 0]
        end = min(end_candidates) if end_candidates else len(data)
        return data[: start + 1] + HUGE[value % len(HUGE)] + data[end:]
    if kind == "long_line":
        size = (1 << 20) + 1 + value % 4096  # just over the 1 MiB line limit
        return data[:p] + b"x" * size + data[p:]
    if kind == "deep_nesting":
        depth = 500 + value % 5000
        return data[:p] + b"[" * depth + b"1" + b"]" * depth + data[p:]
    if kind == "duplicate_line":
        lines = _lines(data)
        i = min(int(at * len(lines)), len(lines) - 1)
        return b"\n".join([*lines[: i + 1], lines[i], *lines[i + 1 :]])
    if kind == "drop_line":
        lines = _lines(data)
        i = min(int(at * len(lines)), len(lines) - 1)
        return b"\n".join(lines[:i] + lines[i + 1 :])
    if kind == "blank_lines":
        return data[:p] + b"\n" * (1 + value % 70000) + data[p:]
    if kind == "random_bytes":
        return data[:p] + rng.randbytes(1 + value % 64) + data[p:]
    if kind == "latin1":
        return data[:p] + b"caf\xe9" + data[p:]
    if kind == "gzip":
        return gzip.compress(data, mtime=0)
    if kind == "gzip_truncated":
        packed = gzip.compress(data, mtime=0)
        return packed[: max(1, _pos(packed, at))]
    if kind == "markup":
        tags = [b"<top>", b"</top>", b"<DOC>", b"</DOC>", b"<num>", b"<!--", b"&#99999999;", b"]]>"]
        return data[:p] + tags[value % len(tags)] + data[p:]
    raise ValueError(kind)


def source(kind: str, index: int) -> Path:
    files = SOURCES[kind]
    return BASE / files[index % len(files)]


def random_mutation(rng: random.Random) -> tuple[str, float, int]:
    return rng.choice(KINDS), rng.random(), rng.randrange(1 << 16)


def damage(data: bytes, how: str, at: float, value: int) -> bytes:
    """A project file damaged: cut short, a page overwritten, bytes flipped, or a header
    field changed."""
    rng = random.Random(value)
    if how == "truncate":
        return data[: int(at * len(data))]
    if how == "page":
        size = int.from_bytes(data[16:18], "big") if len(data) >= 100 else 4096  # its header's
        page = 1 + int(at * (len(data) // size - 1))
        return data[: page * size] + rng.randbytes(size) + data[(page + 1) * size :]
    if how == "flips":
        buf = bytearray(data)
        for _ in range(1 + value % 16):
            i = rng.randrange(len(buf))
            buf[i] ^= 1 + rng.randrange(255)
        return bytes(buf)
    # the 100-byte header: page size, versions, counts
    i = 16 + int(at * 84)
    return data[:i] + bytes([value & 0xFF]) + data[i + 1 :]
