"""Byte strings as numpy rows: the qids and docnos the bulk readers cut out of a file.

A column of n strings is an ``(n, W)`` uint8 matrix, ``W`` a multiple of 8, each row the
UTF-8 bytes of one string padded with zeros (the readers refuse NUL, so the padding cannot
be mistaken for text). Read as 64-bit words, rows compare exactly with a few vector
operations and hash to one integer each; read as big-endian numbers they sort in byte
order, which is Python's ``str`` order and trec_eval's ``strcmp`` order. Nothing here makes
a Python object per string except :meth:`ByteKeys.to_list`.

Hashes only ever narrow a search: every match they suggest is confirmed on the bytes, and
a true collision (two different strings, one hash) takes an exact route by sorting the
strings themselves.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

# the first b bytes of a little-endian word
_LOW_MASKS = np.array([(1 << (8 * b)) - 1 for b in range(9)], dtype=np.uint64)
_MIX1 = np.uint64(0x9E3779B97F4A7C15)
_MIX2 = np.uint64(0xBF58476D1CE4E5B9)
_SHIFT = np.uint64(31)
_LE = np.dtype("<u8")
# bytes that stand for themselves inside a JSON string (0: the padding); not '"', '\\' or
# the control characters below 0x20
_JSON_PLAIN = np.ones(256, dtype=bool)
_JSON_PLAIN[1:32] = False
_JSON_PLAIN[[ord('"'), ord("\\")]] = False
_BE = np.dtype(">u8")
# rows gathered at a time to compare strings: the temporaries of a comparison stay a few
# hundred KB however many rows it has (a run's hits among the qrels: 50,000 and more)
_CHUNK_ROWS = 8192


def _windows(buf: np.ndarray, width: int) -> np.ndarray:
    """The window of ``width`` bytes at every byte of ``buf`` (contiguous uint8), as one
    opaque item each, without copying: indexing it copies each window whole, at about the
    cost of copying one 64-bit word (a column of words at a time costs that per word, and
    rows of a strided 2-D window view four times as much)."""
    return np.ndarray((len(buf) - width + 1,), dtype=f"V{width}", buffer=buf, strides=(1,))


def _gather_rows(mat: np.ndarray, index: np.ndarray) -> np.ndarray:
    """The rows ``index`` of an (n, W) uint8 matrix, as n opaque items of W bytes. By
    ``np.take``, not ``[index]``: numpy's fancy indexing copies an item wider than 16
    bytes through a per-item transfer function, ``take`` by one memmove each (43,000 rows
    of 72 bytes out of 230,000: 1.7 against 4.1 ms). Only for a contiguous source:
    ``take`` first copies a strided one whole (so :meth:`ByteKeys.gather`'s overlapping
    windows are still indexed)."""
    rows = np.ascontiguousarray(mat)
    return np.take(rows.view(f"V{rows.shape[1]}").reshape(-1), index)


@dataclass(slots=True)
class ByteKeys:
    """``n`` byte strings: ``mat`` (n, W) uint8 zero-padded rows, ``lengths`` int64."""

    mat: np.ndarray
    lengths: np.ndarray

    def __len__(self) -> int:
        return len(self.lengths)

    @property
    def width(self) -> int:
        return int(self.mat.shape[1])

    @classmethod
    def empty(cls) -> ByteKeys:
        return cls(np.zeros((0, 8), dtype=np.uint8), np.zeros(0, dtype=np.int64))

    @classmethod
    def gather(cls, buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> ByteKeys:
        """The strings ``buf[starts[i] : starts[i] + lengths[i]]``. ``buf`` (uint8) must
        hold at least ``max(lengths) + 8`` bytes after every start (the readers pad it)."""
        n = len(starts)
        if n == 0:
            return cls.empty()
        width = 8 * max(1, (int(lengths.max()) + 7) // 8)
        if not buf.flags.c_contiguous:
            buf = np.ascontiguousarray(buf)
        words = _windows(buf, width)[starts].view(_LE).reshape(n, width // 8)
        shortest = int(lengths.min())
        for j in range(width // 8):
            if 8 * (j + 1) > shortest:  # not every string fills this word: clear the rest
                words[:, j] &= np.take(_LOW_MASKS, lengths - 8 * j, mode="clip")
        return cls(words.view(np.uint8), np.asarray(lengths, dtype=np.int64))

    @classmethod
    def from_strings(cls, strings: list[str]) -> ByteKeys:
        """Keys of Python strings (tests, and callers that have strings already)."""
        if not strings:
            return cls.empty()
        encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
        joined = np.frombuffer(b"".join(encoded) + bytes(int(lengths.max()) + 8), np.uint8)
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        return cls.gather(joined, starts, lengths)

    def words(self) -> np.ndarray:
        """(n, W/8) little-endian words, for hashing and equality."""
        return self.mat.view(_LE)

    def order_words(self) -> np.ndarray:
        """(n, W/8) words whose numeric order, column after column, is the byte order."""
        return self.mat.view(_BE).astype(np.uint64)

    def widen(self, width: int) -> ByteKeys:
        """The same strings in rows of ``width`` bytes (at least the current width)."""
        if width == self.width:
            return self
        mat = np.zeros((len(self), width), dtype=np.uint8)
        mat[:, : self.width] = self.mat
        return ByteKeys(mat, self.lengths)

    def take(self, index: np.ndarray) -> ByteKeys:
        index = np.asarray(index)
        if index.dtype == bool:
            index = np.flatnonzero(index)
        return ByteKeys(self.row_words(index).view(np.uint8), self.lengths[index])

    @staticmethod
    def concat(parts: list[ByteKeys]) -> ByteKeys:
        parts = [p for p in parts if len(p)]
        if not parts:
            return ByteKeys.empty()
        if len(parts) == 1:
            return parts[0]
        width = max(p.width for p in parts)
        return ByteKeys(
            np.concatenate([p.widen(width).mat for p in parts]),
            np.concatenate([p.lengths for p in parts]),
        )

    def hashes(self) -> np.ndarray:
        """A 64-bit hash of each string (the same string, the same hash, at any width:
        padding words are zero and leave the hash alone)."""
        words = self.words()
        h = words[:, 0] * _MIX1
        # a word is padding (zero) exactly where the string ends before it (no NUL in the
        # strings): the words every string reaches are mixed in place, with no mask and no
        # temporary (long docnos: most of their words), only the others through a mask
        shortest = int(self.lengths.min()) if len(self) else 0
        for j in range(1, words.shape[1]):
            col = words[:, j]
            if 8 * j < shortest:
                h ^= col
                h *= _MIX2
                continue
            nonzero = self.lengths > 8 * j
            if nonzero.any():
                h = np.where(nonzero, (h ^ col) * _MIX2, h)
        h ^= h >> _SHIFT
        return h

    def rows_equal(
        self, i: np.ndarray, other: ByteKeys | ScatteredKeys, j: np.ndarray
    ) -> np.ndarray:
        """``self[i[k]] == other[j[k]]`` for every k, exactly. Rows are compared a slice
        at a time (the gathered rows of both sides, never more than _CHUNK_ROWS of each),
        on the words both widths have: strings of equal length end within the narrower
        width, so the wider side's other words are padding."""
        return _rows_equal(self, i, other, j)

    def row_words(self, index: np.ndarray) -> np.ndarray:
        """(len(index), W/8) words of the rows ``index`` (each row gathered whole, as one
        opaque item: a 2-D gather of rows of bytes is some four times slower)."""
        rows = _gather_rows(self.mat, index)
        words: np.ndarray = rows.view(_LE).reshape(len(rows), self.width // 8)
        return words

    def _framed(self, lead: bytes, tail: bytes) -> bytes:
        """Every string between ``lead`` and ``tail`` (``tail`` right after its last byte),
        joined: one gather for the column, the padding's zeros dropped by one replace (the
        strings hold no NUL)."""
        n, width, at = len(self), self.width, len(lead)
        out = np.zeros((n, at + width + len(tail)), dtype=np.uint8)
        out[:, :at] = np.frombuffer(lead, dtype=np.uint8)
        out[:, at : at + width] = self.mat
        rows = np.arange(n)
        for k, byte in enumerate(tail):
            out[rows, self.lengths + at + k] = byte
        return out.tobytes().replace(b"\x00", b"")

    def to_list(self) -> list[str]:
        """The strings, decoded (one gather, one decode and one split for the column; the
        strings hold no line ends)."""
        if len(self) == 0:
            return []
        return self._framed(b"", b"\n").decode("utf-8", "surrogatepass").split("\n")[:-1]

    def json_array(self) -> str:
        """The strings as one JSON array of strings (raw UTF-8, as ``json.dumps`` with
        ``ensure_ascii=False`` but without spaces), built on the bytes, with no Python
        string per key, unless a string needs escaping (a quote, a backslash, a control
        character) or is not UTF-8 (surrogates, read with surrogatepass): then through
        :meth:`to_list` and ``json.dumps``."""
        if len(self) == 0:
            return "[]"
        if _JSON_PLAIN[self.mat].all():
            with contextlib.suppress(UnicodeDecodeError):
                return "[" + self._framed(b'"', b'",')[:-1].decode("utf-8") + "]"
        return json.dumps(self.to_list(), ensure_ascii=False, separators=(",", ":"))

    def byte_order(self, *, in_runs: bool = False) -> np.ndarray:
        """The stable permutation that puts the strings in byte order. ``in_runs``: they
        come as a few stretches each in byte order already (parts sorted apart), which a
        stable sort of the rows as byte strings (timsort) merges in about linear time;
        the sort of word columns is faster for strings in no order."""
        if in_runs:
            rows = np.ascontiguousarray(self.mat).view(f"S{self.width}").ravel()
            return np.argsort(rows, kind="stable")
        words = self.order_words()
        return np.lexsort(tuple(words[:, c] for c in range(words.shape[1] - 1, -1, -1)))

    def unique(self, hashes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(first, inverse)``: rows ``first`` are the distinct strings (in no particular
        order), ``inverse[i]`` the index in ``first`` of string ``i``. Exact. ``hashes``
        are :meth:`hashes` if known."""
        n = len(self)
        if n == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        first, inverse = hash_groups(self.hashes() if hashes is None else hashes)
        # only a row that is not its group's first need be compared with it (most rows of
        # a qrels file are a docno's only one)
        leader = first[inverse]
        others = np.flatnonzero(leader != np.arange(n))
        if self.rows_equal(others, self, leader[others]).all():
            return first, inverse
        # two different strings share a hash: sort the strings themselves
        as_text = self.mat.view(f"S{self.width}").ravel()
        _, first, inverse = np.unique(as_text, return_index=True, return_inverse=True)
        return first.astype(np.int64), inverse.astype(np.int64).ravel()


class ScatteredKeys:
    """The rows of several :class:`ByteKeys` (a file's blocks) as one column, seen through
    an optional permutation (row ``i`` is row ``order[i]`` of the parts one after another),
    without joining them: what reading a run needs of its docnos before they are in their
    final order (the docnos of tied rows, of rows whose hashes meet, of the rows a lookup
    finds) comes from the parts themselves, and :meth:`joined` makes the column once, in
    its final order (or it is never made: `evaluate` only looks the docnos up). The parts
    are kept at one width (a narrower one is widened, which a block of shorter docnos than
    the first needs), so that rows are gathered whole, as opaque items."""

    __slots__ = ("_offsets", "order", "parts")

    def __init__(self, parts: Sequence[ByteKeys], order: np.ndarray | None = None) -> None:
        kept = [p for p in parts if len(p)]
        width = max((p.width for p in kept), default=8)
        self.parts = [p.widen(width) for p in kept]
        self._offsets = np.cumsum([0] + [len(p) for p in self.parts])
        self.order = order

    def __len__(self) -> int:
        return int(self._offsets[-1]) if self.order is None else len(self.order)

    def permuted(self, order: np.ndarray) -> ScatteredKeys:
        """Row ``i`` of the result is row ``order[i]`` of this one."""
        return ScatteredKeys(self.parts, order if self.order is None else self.order[order])

    def take(self, index: np.ndarray) -> ByteKeys:
        """Rows ``index`` (of this view) as keys of their own. Rows in increasing order (a
        selection of tied rows, of rows found) are gathered a part at a time, each part's
        share a slice of them; others are sorted out by part first."""
        rows = np.asarray(index) if self.order is None else self.order[index]
        if len(self.parts) <= 1:
            return self.parts[0].take(rows) if self.parts else ByteKeys.empty()
        width = self.parts[0].width
        out = np.empty(len(rows), dtype=f"V{width}")
        lengths = np.empty(len(rows), dtype=np.int64)
        shares: list[Any]  # slices of rows, or row positions
        if len(rows) < 2 or bool((rows[1:] >= rows[:-1]).all()):
            cuts = np.searchsorted(rows, self._offsets).tolist()
            shares = [slice(a, b) for a, b in pairwise(cuts)]
        else:
            part = np.searchsorted(self._offsets, rows, side="right") - 1
            shares = [np.flatnonzero(part == k) for k in range(len(self.parts))]
        for k, (keys, mine) in enumerate(zip(self.parts, shares, strict=True)):
            local = rows[mine] - self._offsets[k]
            if len(local):
                out[mine] = _gather_rows(keys.mat, local)
                lengths[mine] = keys.lengths[local]
        return ByteKeys(out.view(np.uint8).reshape(len(rows), width), lengths)

    def joined(self) -> ByteKeys:
        """Every row, in this view's order, as one column."""
        if self.order is None:
            return ByteKeys.concat(self.parts)
        return self.take(np.arange(len(self)))

    def hashes(self) -> np.ndarray:
        """:meth:`ByteKeys.hashes` of every row, in this view's order."""
        parts = [p.hashes() for p in self.parts]
        joined = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)
        return joined if self.order is None else joined[self.order]

    def rows_equal(
        self, i: np.ndarray, other: ByteKeys | ScatteredKeys, j: np.ndarray
    ) -> np.ndarray:
        """``self[i[k]] == other[j[k]]`` for every k, exactly (as ByteKeys.rows_equal)."""
        return _rows_equal(self, i, other, j)

    def order_words(self) -> np.ndarray:
        return self.joined().order_words()


def _rows_equal(
    x: ByteKeys | ScatteredKeys, i: np.ndarray, y: ByteKeys | ScatteredKeys, j: np.ndarray
) -> np.ndarray:
    """``x[i[k]] == y[j[k]]`` for every k: the rows of each side gathered whole (``take``)
    _CHUNK_ROWS at a time and compared on the words both widths have (strings of equal
    length end within the narrower width, so the wider side's other words are padding);
    each row is gathered once, and compared where it was gathered."""
    same = np.empty(len(i), dtype=bool)
    for at in range(0, len(i), _CHUNK_ROWS):
        part = slice(at, at + _CHUNK_ROWS)
        a, b = x.take(i[part]), y.take(j[part])
        out = same[part]
        np.equal(a.lengths, b.lengths, out=out)
        a_words, b_words = a.words(), b.words()
        for c in range(min(a.width, b.width) // 8):
            out &= a_words[:, c] == b_words[:, c]
    return same


def hash_groups(hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Entries grouped by equal hash: ``(first, inverse)``, ``first`` one entry of each
    group (any member may represent it: no stable sort), ``inverse[i]`` the group of entry
    ``i``. Equal hashes need not mean equal keys: callers confirm on the keys."""
    n = len(hashes)
    order = np.argsort(hashes)
    ordered = hashes[order]
    starts = np.empty(n, dtype=bool)
    starts[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.cumsum(starts) - 1
    return order[starts], inverse


def equal_pairs(keys: np.ndarray) -> np.ndarray:
    """Pairs ``(i, j)`` of rows with ``keys[i] == keys[j]`` (uint64), ``i != j``: of the g
    rows holding one key, g - 1 appear once each as ``j``. In rounds, the
    pending rows are scattered into a table of about two slots per row by some bits of
    their key, and each slot keeps one row (the last written); a row equal to its slot's
    keeper is a pair, the keepers are done, and the other rows try again with other bits.
    Rows of one key share every slot, so they stay pending together until one keeps a
    slot. Memory: a table of 4-byte rows, without the sort or the 16 bytes a slot of
    :class:`HashSlots` takes."""
    n = len(keys)
    if n < 2:
        return np.zeros((0, 2), dtype=np.int64)
    bits = max(6, (2 * n).bit_length())
    shift = np.uint64(64 - bits)
    table = np.empty(1 << bits, dtype=np.int32 if n < 1 << 31 else np.int64)
    rows = np.arange(n, dtype=table.dtype)
    pending = keys
    found: list[np.ndarray] = []
    mix = int(_MIX1)
    while len(rows) > 1:
        slot = pending * np.uint64(mix)
        slot >>= shift  # in place, then read as indices (below 2**bits): no copies
        table[slot.view(np.intp)] = rows
        keeper = table[slot.view(np.intp)]
        del slot
        # the positions once, then gathers: three boolean masks would each count and scan
        # every row again (measured: 345 against ~70 us for 50,000 rows)
        lost = np.flatnonzero(keeper != rows)
        rows, keeper, pending = rows[lost], keeper[lost], pending[lost]
        same = pending == keys[keeper]
        if same.any():
            found.append(np.stack((keeper[same], rows[same]), axis=1).astype(np.int64))
            rows, pending = rows[~same], pending[~same]
        mix = (mix + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF | 1  # other bits, still odd
    return np.concatenate(found) if found else np.zeros((0, 2), dtype=np.int64)


class HashSlots:
    """An open-addressing hash table of 64-bit hashes, each with a value (linear probing,
    at most a quarter full, or half with ``spread=2``), filled and probed for many hashes
    at once: each round puts (or looks for) every pending hash in its current slot, the
    others move one slot on. ``HashSlots(hashes)`` holds each hash with its index; filling
    notes which hashes met an equal one already there (``repeats``: pairs of values), so
    it also finds repeated keys in one pass, without sorting them. Values below 2**31 are
    held in 4 bytes (a table of n hashes: 12 bytes a slot)."""

    __slots__ = ("_count", "_index", "_mask", "_shift", "_spread", "_table", "repeats")

    def __init__(self, hashes: np.ndarray | None = None, *, spread: int = 4) -> None:
        self._count = 0
        self._spread = spread
        self._alloc(0 if hashes is None else len(hashes))
        self.repeats = np.zeros((0, 2), dtype=np.int64)
        if hashes is not None:
            self.repeats = self._place(hashes | np.uint64(1), np.arange(len(hashes)))

    def _alloc(self, m: int) -> None:
        bits = max(6, (self._spread * m).bit_length())
        self._mask = (1 << bits) - 1
        self._shift = np.uint64(64 - bits)
        self._table = np.zeros(1 << bits, dtype=np.uint64)  # 0: a free slot
        self._index: np.ndarray = np.zeros(1 << bits, dtype=_number_dtype(1 << bits))

    def _place(self, keys: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Put keys (low bit set) with their values; pairs (value held, value) of repeats."""
        table, index = self._table, self._index
        found: list[np.ndarray] = []
        pending = np.arange(len(keys))
        pos = (keys >> self._shift).astype(np.int64)
        while pending.size:
            at = pos[pending]
            wanted = keys[pending]
            held = table[at]
            same = held == wanted
            if same.any():
                found.append(np.stack((index[at[same]], values[pending[same]]), axis=1))
            free = held == 0
            table[at[free]] = wanted[free]
            index[at[free]] = values[pending[free]]
            # of several hashes wanting one free slot the last written keeps it; the others
            # look at it again next round (it may hold their equal)
            done = same
            done[free] = index[at[free]] == values[pending[free]]
            move = ~free & ~same
            pos[pending[move]] = (at[move] + 1) & self._mask
            pending = pending[~done]
        self._count += len(keys)
        return np.concatenate(found) if found else np.zeros((0, 2), dtype=np.int64)

    def insert(self, hashes: np.ndarray, values: np.ndarray) -> None:
        """Add hashes that are not in the table yet, with their values (distinct)."""
        if self._spread * (self._count + len(hashes)) > len(self._table):
            held = self._table != 0
            old_keys, old_values = self._table[held], self._index[held]
            self._alloc(2 * (self._count + len(hashes)))
            self._count = 0
            self._place(old_keys, old_values)
        self._place(hashes | np.uint64(1), values)

    def find(self, hashes: np.ndarray) -> np.ndarray:
        """For each hash, the value of an equal hash in the table, or -1."""
        keys = hashes | np.uint64(1)
        home = (keys >> self._shift).astype(np.intp)
        # the first look, at every key's home slot, without the bookkeeping of the rounds
        # after it: most keys end there (found, or an empty slot)
        held = self._table[home]
        hit = held == keys
        found = np.full(len(keys), -1, dtype=np.int64)
        at_hit = np.flatnonzero(hit)
        found[at_hit] = self._index[home[at_hit]]
        pending = np.flatnonzero((held != 0) ^ hit)  # a hit is held: held, but not it
        at = (home[pending] + 1) & self._mask
        while pending.size:
            held = self._table[at]
            hit = held == keys[pending]
            found[pending[hit]] = self._index[at[hit]]
            go = (held != 0) & ~hit
            pending = pending[go]
            at = (at[go] + 1) & self._mask
        return found


class HashCollision(Exception):
    """Two different strings with one 64-bit hash: the caller takes an exact road."""


class Interner:
    """The distinct strings met so far, numbered 0, 1, 2, ... as they are first met;
    :meth:`add` numbers a whole column at once. Work follows the entries added plus the
    distinct strings, with no sort; every match is confirmed on the bytes, and a hash
    collision raises :class:`HashCollision`."""

    __slots__ = ("_lengths", "_mat", "_slots", "count")

    def __init__(self) -> None:
        self._slots = HashSlots()
        self._mat = np.zeros((1024, 8), dtype=np.uint8)
        self._lengths = np.zeros(1024, dtype=np.int64)
        self.count = 0

    def keys(self) -> ByteKeys:
        """The distinct strings, in the order of their numbers."""
        return ByteKeys(self._mat[: self.count], self._lengths[: self.count])

    def add(self, keys: ByteKeys, hashes: np.ndarray | None = None) -> np.ndarray:
        """The number of every string of ``keys`` (new ones numbered on)."""
        h = keys.hashes() if hashes is None else hashes
        ids = self._slots.find(h) if self.count else np.full(len(keys), -1, dtype=np.int64)
        hit = np.flatnonzero(ids >= 0)
        if hit.size and not keys.rows_equal(hit, self.keys(), ids[hit]).all():
            raise HashCollision
        new = np.flatnonzero(ids < 0)
        if new.size:
            fresh = HashSlots(h[new])
            first = np.arange(len(new))
            if len(fresh.repeats):
                held, again = fresh.repeats[:, 0], fresh.repeats[:, 1]
                if not keys.rows_equal(new[held], keys, new[again]).all():
                    raise HashCollision
                # the slot holds whichever of a group was written last: number the
                # group by its first row, so strings are numbered in the order met
                low = first.copy()
                np.minimum.at(low, held, again)
                first[again] = low[held]
                first[held] = low[held]
            leaders = np.flatnonzero(first == np.arange(len(new)))
            number = np.zeros(len(new), dtype=np.int64)
            number[leaders] = self.count + np.arange(len(leaders))
            ids[new] = number[first]
            self._slots.insert(h[new[leaders]], number[leaders])
            self._append(keys.take(new[leaders]))
        return ids

    def _append(self, keys: ByteKeys) -> None:
        end = self.count + len(keys)
        width = max(keys.width, self._mat.shape[1])
        if end > len(self._lengths) or width > self._mat.shape[1]:
            size = (
                max(end, 2 * len(self._lengths)) if end > len(self._lengths) else len(self._lengths)
            )
            mat = np.zeros((size, width), dtype=np.uint8)
            mat[: self.count, : self._mat.shape[1]] = self._mat[: self.count]
            lengths = np.zeros(size, dtype=np.int64)
            lengths[: self.count] = self._lengths[: self.count]
            self._mat, self._lengths = mat, lengths
        self._mat[self.count : end, : keys.width] = keys.mat
        self._lengths[self.count : end] = keys.lengths
        self.count = end


def _number_dtype(n: int) -> type:
    """int32 for numbers below 2**31 (a column of a million entries: 4 MB, not 8, to write,
    send between processes and gather), else int64."""
    return np.int32 if n < 2**31 else np.int64


@dataclass(slots=True)
class Numbered:
    """Strings of several columns numbered once across them: ``keys`` the distinct strings,
    ``ids[i]`` the numbers of column ``i``'s strings. The strings are numbered in the order
    first met, or in byte order when ``byte_ordered`` (see :meth:`in_byte_order`)."""

    keys: ByteKeys
    ids: list[np.ndarray]
    byte_ordered: bool = False

    @classmethod
    def of(cls, columns: Sequence[tuple[ByteKeys, np.ndarray | None]]) -> Numbered:
        """The columns (each with its strings' hashes, or None) numbered by an
        :class:`Interner`; raises :class:`HashCollision` as it does."""
        interner = Interner()
        ids = [interner.add(keys, hashes) for keys, hashes in columns]
        return cls(interner.keys(), ids)

    def in_byte_order(self) -> Numbered:
        """The same strings numbered in their byte order (itself if they are already)."""
        if self.byte_ordered:
            return self
        order = self.keys.byte_order()
        rank: np.ndarray = np.empty(len(order), dtype=_number_dtype(len(order)))
        rank[order] = np.arange(len(order))
        return Numbered(self.keys.take(order), [rank[ids] for ids in self.ids], True)

    @classmethod
    def merge(cls, parts: Sequence[Numbered]) -> Numbered:
        """One numbering, in byte order, of every part's columns, in order (the parts
        numbered apart, say in different processes): only the parts' distinct strings are
        sorted together, by a stable sort of them as byte strings (exact, no hashes). Parts
        numbered in byte order already, as forked readers send them, are sorted stretches
        that it merges in about linear time."""
        keys = ByteKeys.concat([part.keys for part in parts])
        order = keys.byte_order(in_runs=True)
        words = keys.row_words(order)
        # a string starts a group unless it equals the one before it (zero padding, no NUL
        # in the strings: equal words are equal strings)
        starts = np.ones(len(order), dtype=bool)
        if len(order) > 1:
            starts[1:] = (words[1:] != words[:-1]).any(axis=1)
        number: np.ndarray = np.empty(len(order), dtype=_number_dtype(len(order)))
        number[order] = np.cumsum(starts) - 1
        ids: list[np.ndarray] = []
        at = 0
        for part in parts:
            renumber = number[at : at + len(part.keys)]
            at += len(part.keys)
            ids.extend(renumber[local] for local in part.ids)
        return cls(keys.take(order[starts]), ids, True)


class KeyTable:
    """Distinct strings, looked up by many strings at once: ``lookup(keys)`` gives each
    string's row in the table, or -1. Their hashes are found in a :class:`HashSlots`, and
    every match is confirmed on the bytes."""

    __slots__ = ("_exact", "_filter", "_filter_shift", "_slots", "keys")

    def __init__(self, keys: ByteKeys, hashes: np.ndarray | None = None) -> None:
        """``hashes``: ``keys.hashes()`` if known."""
        self.keys = keys
        if hashes is None:
            hashes = keys.hashes()
        # at most half full: a third of the memory of a quarter-full table (12 bytes a
        # slot), no slower when most strings looked up are found (5,000 judged a topic)
        self._slots = HashSlots(hashes, spread=2)
        # a collision among the table's own strings: look up by the strings instead
        self._exact = len(self._slots.repeats) > 0
        # a flag per value of the hashes' top bits (16 a string: ~6% of other strings
        # pass; the top bits are the well mixed ones): most strings looked up among qrels'
        # docnos are not there, and one gather turns them away before the probing
        self._filter_shift = np.uint64(64 - max(10, (16 * len(keys)).bit_length()))
        self._filter = np.zeros(1 << (64 - int(self._filter_shift)), dtype=bool)
        self._filter[(hashes >> self._filter_shift).astype(np.intp)] = True

    def __len__(self) -> int:
        return len(self.keys)

    def lookup(
        self, keys: ByteKeys | ScatteredKeys, hashes: np.ndarray | None = None
    ) -> np.ndarray:
        """Each string's row in the table or -1; ``hashes`` are ``keys.hashes()`` if known."""
        n, m = len(keys), len(self.keys)
        if n == 0 or m == 0:
            return np.full(n, -1, dtype=np.int64)
        if self._exact:
            return self._lookup_exact(keys if isinstance(keys, ByteKeys) else keys.joined())
        if hashes is None:
            hashes = keys.hashes()
        found = np.full(n, -1, dtype=np.int64)
        top = hashes >> self._filter_shift  # below 2**63: read as indices, not copied
        maybe = np.flatnonzero(self._filter[top.view(np.intp)])
        del top
        found[maybe] = self._slots.find(hashes[maybe])
        hit = np.flatnonzero(found >= 0)
        same = keys.rows_equal(hit, self.keys, found[hit])
        found[hit[~same]] = -1
        return found

    def _lookup_exact(self, keys: ByteKeys) -> np.ndarray:
        width = max(keys.width, self.keys.width)
        table = self.keys.widen(width).mat.view(f"S{width}").ravel()
        wanted = keys.widen(width).mat.view(f"S{width}").ravel()
        order = np.argsort(table, kind="stable")
        pos = np.minimum(np.searchsorted(table[order], wanted), len(table) - 1)
        rows = order[pos]
        return np.where(table[rows] == wanted, rows, -1).astype(np.int64)
