"""Whitespace-separated column files (runs, qrels) read a chunk at a time.

The fast path tokenises a whole chunk with one ``str.split`` after putting a marker token
(NUL, which the decoder has already ruled out of the text) at every line end. When the token
list is exactly ``n_lines`` rows of the same width with a marker closing each row, every line
has the same number of columns and the columns are plain strided slices of one list: no
Python work per line. Anything else (comments, blank lines, ragged lines, errors) goes through
a line-by-line pass that knows each line's number and says precisely what is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from judgeapp.formats.errors import FormatError, quoted
from judgeapp.formats.textio import Chunk, PathArg

_MARK = "\x00"
# characters Python's str.split() takes for white space but C's isspace (trec_eval) does not
_NOT_C_SPACE = "\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
_NOT_C_SPACE += "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
_SPREAD = np.uint64(0x9E3779B97F4A7C15)  # mixes the qid's hash into the docno's
_C_SPACE = re.compile(r"[ \t\v\f\r]+")
_C_SPACE_CHARS = " \t\n\v\f\r"
_ANY_C_SPACE = re.compile(r"[ \t\n\v\f\r]")
_C_SPACE_SPLIT = re.compile(r"[ \t\n\v\f\r]+")
# a comment line: first non-blank character is '#' (trec_eval skips leading blanks in runs)
_COMMENT = re.compile(r"^[ \t\f\v]*#", re.M)


def has_odd_space(text: str) -> bool:
    """Does the text hold a character that str.split() would split on and trec_eval not?"""
    if text.isascii():
        return any(c in text for c in _NOT_C_SPACE[:4])
    return any(c in text for c in _NOT_C_SPACE)


def has_column_space(text: str) -> bool:
    """Does the text hold a character that separates columns (C's isspace: ASCII white
    space)? An id with one could not be written to a run or qrels file and read back."""
    return _ANY_C_SPACE.search(text) is not None


def split_fields(line: str, odd_space: bool) -> list[str]:
    """The columns of a line, separated as trec_eval separates them (ASCII white space)."""
    if not odd_space:
        return line.split()
    return [field for field in _C_SPACE.split(line) if field]


def split_columns(line: str, columns: int) -> list[str]:
    """Up to ``columns`` columns of a line, separated as trec_eval separates them, and the
    rest of the line (from its first character after the separator, right-stripped) as one
    more field: ``topic docno grade [note]`` lines, whose note may hold spaces."""
    fields = _C_SPACE_SPLIT.split(line.strip(_C_SPACE_CHARS), maxsplit=columns)
    return [f for f in fields if f]


def split_uniform(chunk: Chunk) -> tuple[list[str], int] | None:
    """``(tokens, width)`` when every line of the chunk has ``width - 1`` columns (the
    tokens hold a marker after each row), else None. Comment lines are not looked at; a
    chunk with white space that trec_eval would not split on is left to the slow path."""
    n = chunk.n_lines
    if n == 0 or has_odd_space(chunk.text):
        return None
    toks = chunk.text.replace("\n", " \x00 ").split()
    width, rest = divmod(len(toks), n)
    if rest or width < 2 or toks[width - 1 :: width].count(_MARK) != n:
        return None
    return toks, width


def has_comment(text: str) -> bool:
    return "#" in text and _COMMENT.search(text) is not None


def is_comment(fields: Sequence[str]) -> bool:
    return fields[0].startswith("#")


def _bad_chars(tokens: list[str], text: str) -> bool:
    """Python's float() and int() accept '1_000' and non-ASCII digits; C's atof/atol (and
    so trec_eval) do not, so such tokens are refused. Checked cheaply on the whole chunk."""
    if "_" not in text and text.isascii():
        return False
    joined = "".join(tokens)
    return "_" in joined or not joined.isascii()


def to_floats(
    path: PathArg, tokens: list[str], text: str, line_of: Callable[[int], int], what: str
) -> np.ndarray:
    """float64 array of ``tokens``; the first bad one raises ``what 'x' is not a number``.
    NaN is refused too: it has no place in a ranking."""
    try:
        values = np.fromiter(map(float, tokens), np.float64, len(tokens))
    except ValueError:
        values = None
    if values is None or _bad_chars(tokens, text) or np.isnan(values).any():
        for i, tok in enumerate(tokens):
            if not _is_float(tok):
                raise FormatError(path, line_of(i), f"{what} {quoted(tok)} is not a number")
    assert values is not None  # a token float() refuses is refused above too
    return values


def _is_float(tok: str) -> bool:
    if "_" in tok or not tok.isascii():
        return False
    try:
        value = float(tok)
    except ValueError:
        return False
    return value == value  # NaN is not a usable score


# Grades are small integers (TREC uses -2 to 4); 1000 is far beyond any real scale and keeps
# every measure exact and cheap: 2**1000 (the exp-log2 gain of nDCG) is a finite float64, and
# the kernels that count documents per grade (np.bincount) or walk the grades (RBP) stay
# small. A grade outside is refused where it enters: qrels, judgment files, `judge`.
GRADE_LIMIT = 1000
GRADE_RANGE = f"-{GRADE_LIMIT} to {GRADE_LIMIT}"


def parse_int(token: str) -> int | None:
    """The integer C's ``atol`` would read from the whole token (ASCII digits, an optional
    sign; no ``_``, no other digits Python's ``int`` takes), or None."""
    if "_" in token or not token.isascii():
        return None
    try:
        return int(token)
    except ValueError:
        return None


def int_problem(token: str, limit: int = GRADE_LIMIT) -> tuple[int | None, str | None]:
    """``(value, None)`` for an integer token within ``-limit..limit``, else ``(None, why)``:
    ``"is not an integer"`` or ``"is out of range (-limit to limit)"``."""
    value = parse_int(token)
    if value is None:
        digits = token[1:] if token[:1] in "+-" else token
        if not (digits.isascii() and digits.isdigit()):  # else too many digits for int()
            return None, "is not an integer"
    elif -limit <= value <= limit:
        return value, None
    return None, f"is out of range (-{limit} to {limit})"


def to_ints(
    path: PathArg,
    tokens: list[str],
    text: str,
    line_of: Callable[[int], int],
    what: str,
    limit: int = GRADE_LIMIT,
) -> np.ndarray:
    """int64 array of ``tokens``, each within ``-limit..limit``; the first bad one raises
    ``what 'x' is not an integer`` or ``what 'x' is out of range (-limit to limit)``."""
    try:
        values = np.fromiter(map(int, tokens), np.int64, len(tokens))
    except (ValueError, OverflowError):
        values = None
    if values is None or _bad_chars(tokens, text) or ((values < -limit) | (values > limit)).any():
        for i, tok in enumerate(tokens):
            _, problem = int_problem(tok, limit)
            if problem is not None:
                raise FormatError(path, line_of(i), f"{what} {quoted(tok)} {problem}")
    assert values is not None  # a token int() or int64 refuses is refused above too
    return values


def check_duplicate_pairs(
    path: PathArg,
    qids: Sequence[str],
    docnos: Sequence[str],
    lines: np.ndarray,
    docno_hashes: np.ndarray | None = None,
) -> None:
    """Stop at the first (qid, docno) seen twice, naming both lines. Screened with one numpy
    sort of (hash(qid), hash(docno)) keys (``docno_hashes`` when the caller has them); only
    a key collision pays for the exact search. The readers run it on each piece of a file
    as it is read, so that a file of one line repeated (a compression bomb) fails at its
    second line, not after the whole file; duplicates further apart are found by the
    check over the whole file."""
    n = len(docnos)
    if n < 2:
        return
    if docno_hashes is None:
        docno_hashes = np.fromiter(map(hash, docnos), np.int64, n)
    keys = docno_hashes.view(np.uint64) ^ (
        np.fromiter(map(hash, qids), np.int64, n).view(np.uint64) * _SPREAD
    )
    keys.sort()
    if not (keys[1:] == keys[:-1]).any():
        return
    seen: dict[tuple[str, str], int] = {}
    for i, pair in enumerate(zip(qids, docnos, strict=True)):
        if pair in seen:
            both = lines[[seen[pair], i]]
            raise duplicate_error(path, pair[0], [pair[1], pair[1]], both)
        seen[pair] = i


def column_count_error(path: PathArg, line: int, expected: str, found: int) -> FormatError:
    return FormatError(path, line, f"expected {expected}, found {found}")


def duplicate_error(
    path: PathArg, qid: str, docnos: Sequence[str], lines: np.ndarray, what: str = "docno"
) -> FormatError:
    """The first repeated docno of one topic (by file position), with both its lines."""
    seen: dict[str, int] = {}
    for i in np.argsort(lines, kind="stable").tolist():
        d = docnos[i]
        if d in seen:
            first, second = seen[d], int(lines[i])
            return FormatError(
                path, second, f"duplicate {what} {d} for topic {qid} at lines {first} and {second}"
            )
        seen[d] = int(lines[i])
    raise AssertionError("duplicate_error called without a duplicate")
