"""Numbers parsed from their digits with vector arithmetic, for the bulk readers
(:mod:`judgeapp.formats.bulk`): a column of tokens of one block, as ``[+-]digits[.digits]``,
read into floats that equal Python's ``float()`` of each token (exactly rounded), or ints;
a token that is anything else is left to Python (or to the line-precise reader)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judgeapp.bytekeys import _LOW_MASKS, _windows
from judgeapp.formats.errors import Irregular

_HIGH_MASKS = ~_LOW_MASKS  # all but the first b bytes of a little-endian word
_LONG_DOUBLE_EXACT = np.finfo(np.longdouble).nmant >= 63  # x86 extended or quad precision
# 10**0 .. 10**27, each exact in a 64-bit mantissa (5**27 < 2**63): built by multiplying
_POW10_LD = np.cumprod(np.array([1] + [10] * 27, dtype=np.longdouble))


# the longest number parsed with vector arithmetic: 19 digits fit in 64 bits
_MAX_DIGITS = 19
_POW10 = np.array([10**k for k in range(_MAX_DIGITS + 1)], dtype=np.uint64)
_POW10_F = 10.0 ** np.arange(23)


@dataclass(slots=True)
class _Numbers:
    """Number tokens read as ``[+-]digits[.digits]`` (a digit on either side of the point),
    at most 19 characters: ``value`` is the digits as one integer, ``point`` how many of
    them follow the point; ``plain`` is False where a token is anything else."""

    value: np.ndarray  # uint64
    point: np.ndarray  # int64
    has_point: np.ndarray  # bool
    any_point: bool  # has_point.any()
    negative: np.ndarray  # bool
    plain: np.ndarray  # bool


def _right_aligned(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """(n, W) uint8: each token's last W bytes at the right, zeros before it; W is 8, 16
    or 24, the least multiple of 8 that holds the longest token (24 at most: a longer
    token is no plain number). ``buf`` holds W bytes before every token's end."""
    width = min(24, 8 * max(1, (int(lengths.max()) + 7) // 8))
    if not buf.flags.c_contiguous:
        buf = np.ascontiguousarray(buf)
    # the window of W bytes ending at each token's end
    words = _windows(buf, width)[starts + lengths - width].view("<u8").reshape(-1, width // 8)
    shortest = int(lengths.min())
    for j in range(width // 8):
        if width - 8 * j > shortest:  # bytes before some token's start: cleared
            words[:, j] &= np.take(_HIGH_MASKS, width - 8 * j - lengths, mode="clip")
    mat: np.ndarray = words.view(np.uint8)
    return mat


_ZERO_DIGITS = np.uint64(0)
_SWAR_MASK = np.uint64(0x000000FF000000FF)
_SWAR_MUL1 = np.uint64(100 + (1_000_000 << 32))
_SWAR_MUL2 = np.uint64(1 + (10_000 << 32))


def _eight_digits(word: np.ndarray) -> np.ndarray:
    """The number written by the 8 digit values (0-9, most significant first in memory)
    of each little-endian word: pairs, then fours, then all eight combined by multiplying
    lanes of the word at once (the known SWAR way to parse eight digits)."""
    word = word * np.uint64(10) + (word >> np.uint64(8))
    lows = (word & _SWAR_MASK) * _SWAR_MUL1
    highs = ((word >> np.uint64(16)) & _SWAR_MASK) * _SWAR_MUL2
    out: np.ndarray = (lows + highs) >> np.uint64(32)
    return out


_BYTE_SUM = np.uint64(0x0101010101010101)
_SHIFT56 = np.uint64(56)


def _row_counts(flags: np.ndarray) -> np.ndarray:
    """Per row of an (n, W) bool matrix, how many are True: the bytes of each 8-byte word
    summed by one multiplication (numpy's row reductions are slow for short rows)."""
    words = flags.view("<u8")
    total = (words[:, 0] * _BYTE_SUM) >> _SHIFT56
    for j in range(1, words.shape[1]):
        total += (words[:, j] * _BYTE_SUM) >> _SHIFT56
    return total.astype(np.int64)


def _numbers(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> _Numbers:
    mat = _right_aligned(buf, starts, lengths)
    n, width = mat.shape
    digit = mat - np.uint8(48)
    is_digit = digit <= 9
    n_digits = _row_counts(is_digit)
    if lengths.max() <= _MAX_DIGITS and (n_digits == lengths).all():
        # digits only, every token (integer scores, grades): no point, no sign
        digit *= is_digit
        value = _digit_value(digit)
        no = np.zeros(n, dtype=bool)
        return _Numbers(value, np.zeros(n, dtype=np.int64), no, False, no, ~no)
    is_point = mat == 46
    n_points = _row_counts(is_point)
    first = buf[starts]
    negative = first == 45
    signed = negative | (first == 43)
    plain = (lengths <= _MAX_DIGITS) & (n_digits >= 1) & (n_points <= 1)
    plain &= n_digits + n_points + signed == lengths
    # the digits as one integer, a point counting as a zero digit in its place (undone
    # below); 19 characters at most, so a third word holds at most three digits
    digit *= is_digit
    value = _digit_value(digit)
    has_point = n_points > 0
    point = np.zeros(n, dtype=np.int64)
    any_point = bool(has_point.any())
    if any_point:
        point = np.where(has_point, width - 1 - is_point.argmax(axis=1), 0)
        below = value % _POW10[np.minimum(point, _MAX_DIGITS)]
        value = np.where(has_point, (value - below) // np.uint64(10) + below, value)
    return _Numbers(value, point, has_point, any_point, negative, plain)


def _digit_value(digit: np.ndarray) -> np.ndarray:
    """The number each row of digit values (0-9, zeros before the first) writes."""
    words = digit.view("<u8")
    last = words.shape[1] - 1
    value = _eight_digits(words[:, last])
    if last >= 1 and words[:, last - 1].any():
        value += _eight_digits(words[:, last - 1]) * np.uint64(10**8)
    if last >= 2 and words[:, last - 2].any():
        value += _eight_digits(words[:, last - 2]) * np.uint64(10**16)
    return value


def _python_float(token: bytes) -> float:
    """The line reader's rule for one score (columns.to_floats): float(), but no '_', no
    non-ASCII digit, no NaN."""
    if b"_" in token or not token.isascii():
        raise Irregular
    try:
        value = float(token)
    except ValueError:
        raise Irregular from None
    if value != value:
        raise Irregular
    return value


def parse_floats(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """float64 of each token ``buf[start : start + length]``, exactly ``float(token)``
    (correctly rounded); Irregular for a token the line reader would refuse."""
    n = len(starts)
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    num = _numbers(buf, starts, lengths)
    # Clinger's fast path: an integer below 2**53 over an exact power of ten is one
    # correctly rounded division
    fast = num.plain & (num.value < np.uint64(1 << 53))
    values = num.value.astype(np.float64)
    if num.any_point:
        values /= _POW10_F[np.minimum(num.point, 22)]
    done: np.ndarray = fast
    rest = np.flatnonzero(num.plain & ~fast)
    if _LONG_DOUBLE_EXACT and rest.size:
        # up to 19 digits are exact in a 64-bit mantissa, as is 10**18; one rounding to
        # long double, then one to double. That double rounding errs only when the long
        # double lands exactly half-way between two doubles: those go to Python's float()
        xl = num.value[rest].astype(np.longdouble) / _POW10_LD[num.point[rest]]
        xd = xl.astype(np.float64)
        twice = np.abs(xl - xd.astype(np.longdouble)) * 2
        ulp = np.spacing(xd).astype(np.longdouble)
        good = (twice != ulp) & (twice * 2 != ulp)
        values[rest[good]] = xd[good]
        done = done.copy()
        done[rest[good]] = True
    if num.negative.any():
        np.negative(values, out=values, where=num.negative)
    slow = np.flatnonzero(~done)
    if slow.size:
        ends = starts[slow] + lengths[slow]
        tokens = [bytes(buf[a:b]) for a, b in zip(starts[slow], ends, strict=True)]
        values[slow] = np.fromiter(map(_python_float, tokens), np.float64, len(tokens))
    out: np.ndarray = values
    return out


def parse_ints(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """int64 of each token (``[+-]digits``, at most 18 digits); anything else is
    Irregular (the line reader then says what is wrong, or reads it)."""
    if len(starts) == 0:
        return np.zeros(0, dtype=np.int64)
    num = _numbers(buf, starts, lengths)
    if not (num.plain & ~num.has_point & (lengths <= 18)).all():
        raise Irregular
    values = num.value.astype(np.int64)
    out: np.ndarray = np.where(num.negative, -values, values)
    return out
