"""Reading text files the way every reader needs them: compressed or not, strict UTF-8.

Compression is recognised by the file's first bytes, not its name: gzip (``1f 8b``), bzip2
(``BZh``) and xz (``fd 37 7a 58 5a 00``). The text must be UTF-8 (a leading byte order mark is
dropped); line ends may be ``\\n``, ``\\r\\n`` or ``\\r`` and all become ``\\n``. Anything else
is a :class:`FormatError` that says where:

- bytes that are not UTF-8: ``not UTF-8 at byte 1234 (line 17)``; byte offsets count from 0
  in the (decompressed) text;
- a NUL byte (binary data, which trec_eval also refuses);
- a truncated or corrupt compressed stream;
- a file that cannot be opened;
- a line longer than its reader allows: :data:`MAX_COLUMN_LINE` (1 MiB) for the column
  files (runs, qrels), :data:`MAX_LINE` (64 MiB) for the rest. The limit is checked as the
  bytes arrive, so a file with no line end (``/dev/zero``, a binary file, one enormous line)
  is refused after that many bytes, at the line where it starts, in time linear in the limit;
- compressed data that expands more than :data:`MAX_EXPANSION` times (a decompression
  bomb: text compresses about 3 to 10 times), once more than :data:`EXPANSION_FLOOR` bytes
  have come out.

The readers work on :func:`iter_chunks`: pieces of decoded text that always end at a line
boundary, so that a fast reader can tokenise a whole piece with one ``str.split`` while
line numbers stay exact (each chunk knows the number of its first line).
"""

from __future__ import annotations

import bz2
import errno
import gzip
import io
import lzma
import os
import re
import stat
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any, BinaryIO, ClassVar, Protocol, cast

import numpy as np

from judgeapp.formats.errors import FormatError

PathArg = str | os.PathLike[str]

# 64 KiB of text per chunk: the Python objects made from one chunk (about 7 strings per run
# line, some 500 KB) then stay in the CPU's L2 cache while every pass over them runs and
# while they are freed and their memory reused by the next chunk. Measured on the Robust 2003
# runs (CPU time, read_run against the plain parse): 64 KiB 1.0x, 128 KiB 1.35x, 256 KiB
# 1.3-1.5x, 8 MiB also page faults; 16 KiB pays for its many chunks (1.3x).
CHUNK_BYTES = 1 << 16
# the longest line a reader takes (see the module doc); every line of a real run or qrels
# file is far shorter than MAX_COLUMN_LINE, and a document on one line (JSON Lines, TSV)
# far shorter than MAX_LINE
MAX_COLUMN_LINE = 1 << 20
MAX_LINE = 1 << 26
# real TREC files compress 3 to 10 times (gzip, bzip2 or xz: the Robust 2003 runs and the
# qrels of ../shared at most 9.3); a bomb, 1000 times and more
MAX_EXPANSION = 200
EXPANSION_FLOOR = 1 << 26

_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
)
_BOM = b"\xef\xbb\xbf"


@dataclass(slots=True)
class Chunk:
    """Decoded text ending with ``\\n``; ``first_line`` is the 1-based number of its first
    line and ``n_lines`` its count of lines; ``byte`` the offset of its first byte."""

    text: str
    first_line: int
    n_lines: int
    byte: int


def compression_of(path: PathArg) -> str | None:
    """``"gzip"``, ``"bzip2"``, ``"xz"`` or None, from the first bytes of the file."""
    with _open_raw(path) as f:
        head = f.read(6)
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return None


def _open_raw(path: PathArg) -> BinaryIO:
    """The file's bytes. A pipe, a FIFO or a device (`<(cmd)`, `mkfifo`, /dev/stdin) is
    opened once per process, however often it is read (the format is detected from its
    head, then it is read whole; a run is hashed too): see `_Replay`."""
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory")
        if not stat.S_ISREG(mode):
            return _Replay.of(path).reader()
        return open(path, "rb")
    except OSError as exc:
        raise FormatError(path, None, f"cannot open: {exc.strerror or exc}") from None


def open_bytes(path: PathArg) -> BinaryIO:
    """The file's raw bytes, as every reader here reads them (a pipe or a FIFO read once,
    however often it is opened: `_Replay`); errors name the file."""
    return _open_raw(path)


class _Replay:
    """A pipe, FIFO or device, opened once: what its readers have read is kept in a spool
    file, so a later reader of the same path reads those bytes again, then what follows
    them (a FIFO opened a second time would wait for a new writer; a pipe would be empty).
    Only what is read is kept: a reader that stops after a megabyte of /dev/zero spools a
    megabyte."""

    _open: ClassVar[dict[str, _Replay]] = {}

    def __init__(self, path: PathArg) -> None:
        self.raw = open(path, "rb")
        self.spool = tempfile.TemporaryFile()
        self.size = 0  # bytes spooled
        self.eof = False

    @classmethod
    def of(cls, path: PathArg) -> _Replay:
        key = os.path.abspath(os.fspath(path))
        if key not in cls._open:
            cls._open[key] = cls(path)
        return cls._open[key]

    def reader(self) -> BinaryIO:
        return cast(BinaryIO, _ReplayReader(self))

    def read_at(self, pos: int, size: int) -> bytes:
        if pos < self.size:
            self.spool.seek(pos)
            return self.spool.read(min(size, self.size - pos))
        if self.eof:
            return b""
        data = self.raw.read(size)
        if not data:
            self.eof = True
            return b""
        self.spool.seek(self.size)
        self.spool.write(data)
        self.size += len(data)
        return data


class _ReplayReader(io.RawIOBase):
    """One reader of a `_Replay`, from its first byte; it cannot seek (a pipe's data is
    read as it comes, never as compressed data: see `_open_binary`)."""

    def __init__(self, replay: _Replay) -> None:
        super().__init__()
        self.replay = replay
        self.pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            parts = []
            while part := self.read(CHUNK_BYTES):
                parts.append(part)
            return b"".join(parts)
        data = self.replay.read_at(self.pos, size)
        self.pos += len(data)
        return data

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def tell(self) -> int:
        return self.pos


class _ByteStream(Protocol):
    """What the chunking reads from: a file, or one of the decompressors below."""

    def read(self, size: int, /) -> bytes: ...

    def close(self) -> None: ...


class _Gunzip:
    """Decompresses gzip with zlib directly: zlib checks the header, CRC and length itself
    (wbits=31), without GzipFile's Python-level buffering. Input goes in by 16 KiB, about
    one chunk of text, so that the part zlib could not yet use stays small.
    Concatenated members are read one after the other, as gzip does; NUL padding after the
    last member is ignored. ``read(size)`` returns at most ``size`` bytes.

    ``fast``: decompress with ISA-L (python-isal's zlib-compatible ``isal_zlib``), about 2.6
    times faster than zlib on the Robust 2003 runs (CPU 0.07 s against 0.18 s for the 17),
    when it is installed. It also checks CRC and length, but words its errors its own way,
    so only a reader that hands every error to a zlib reader for its message asks for it
    (the bulk reader: an error there is Irregular); its errors arrive as ``zlib.error``."""

    def __init__(self, raw: BinaryIO, fast: bool = False) -> None:
        self.raw = raw
        self.zlib = _fast_zlib() if fast else zlib
        self.inflate = self.zlib.decompressobj(31)
        self.pending = b""  # compressed input not yet given to zlib
        self.started = False  # has the current member received any input?

    def read(self, size: int) -> bytes:
        while True:
            if not self.pending:
                self.pending = self.raw.read(1 << 14)
                if not self.pending:
                    if self.started and not self.inflate.eof:
                        raise EOFError("compressed data ends before the end-of-stream marker")
                    return b""
            if self.inflate.eof:
                if not self.pending.strip(b"\x00"):
                    self.pending = b""  # padding after the last member
                    continue
                self.inflate = self.zlib.decompressobj(31)
            self.started = True
            try:
                out: bytes = self.inflate.decompress(self.pending, size)
            except self.zlib.error as exc:
                if self.zlib is zlib:
                    raise
                raise zlib.error(str(exc)) from None  # isal_zlib.error is its own class
            if self.inflate.eof:
                self.pending = self.inflate.unused_data
            else:
                self.pending = self.inflate.unconsumed_tail
            if out:
                return out

    def close(self) -> None:
        self.raw.close()


def _fast_zlib() -> ModuleType:
    """python-isal's ``isal_zlib`` if installed, else ``zlib``."""
    try:
        from isal import isal_zlib
    except ImportError:
        return zlib
    return isal_zlib


def _open_binary(path: PathArg, fast: bool = False) -> tuple[_ByteStream, str | None, BinaryIO]:
    """(decompressed stream, compression, raw file): the raw file tells how much of the
    compressed data has been read. ``fast``: gzip by ISA-L if installed (see _Gunzip)."""
    raw = _open_raw(path)
    try:
        head = raw.read(6)
        if raw.seekable():
            raw.seek(0)
        elif head:  # a pipe or a device: read as it comes, never as compressed data
            return _Prefixed(head, raw), None, raw
    except OSError as exc:  # a directory opens on Linux, and fails here
        raw.close()
        raise FormatError(path, None, f"cannot read: {exc.strerror or exc}") from None
    for magic, name in _MAGIC:
        if head.startswith(magic):
            if name == "gzip":
                return _Gunzip(raw, fast), name, raw
            if name == "bzip2":
                return bz2.BZ2File(raw, mode="rb"), name, raw
            return lzma.LZMAFile(raw, mode="rb"), name, raw
    return raw, None, raw


class _Prefixed:
    """A stream that cannot seek, with the bytes already read from it put back in front."""

    def __init__(self, head: bytes, raw: BinaryIO) -> None:
        self.head = head
        self.raw = raw

    def read(self, size: int) -> bytes:
        if self.head:
            out, self.head = self.head[:size], self.head[size:]
            return out
        return self.raw.read(size)

    def close(self) -> None:
        self.raw.close()


def _read_block(path: PathArg, f: _ByteStream, size: int, kind: str | None, done: int) -> bytes:
    """One block of decompressed bytes; compression failures become FormatErrors."""
    try:
        return f.read(size)
    except EOFError:
        raise FormatError(
            path,
            None,
            f"truncated {kind} file: the compressed data ends before its end marker "
            "(the byte is where the decompressed text breaks off)",
            byte=done,
        ) from None
    except (gzip.BadGzipFile, zlib.error, OSError, lzma.LZMAError) as exc:
        raise FormatError(
            path,
            None,
            f"corrupt {kind or 'file'} data: {exc}",
            byte=done,
        ) from None


def _line_at(data: bytes, at: int, first_line: int) -> int:
    """The number of the line holding ``data[at]`` (``\n``, ``\r\n`` and ``\r`` end lines)."""
    head = data[:at]
    return first_line + head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n")


def _decode(path: PathArg, data: bytes, first_line: int, byte: int) -> str:
    """Strict UTF-8 with exact positions for the first bad byte or NUL."""
    nul = data.find(b"\x00")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if 0 <= nul < exc.start:
            _raise_nul(path, data, nul, first_line, byte)
        at = exc.start
        line = _line_at(data, at, first_line)
        bad = data[at : at + 1].hex()
        if byte == 0 and data[:2] in (b"\xff\xfe", b"\xfe\xff"):
            hint = "the file is UTF-16; save it as UTF-8"
        else:
            hint = f"byte 0x{bad} {exc.reason}; is the file Latin-1 or another legacy encoding?"
        raise FormatError(
            path, line, f"not UTF-8 at byte {byte + at} (line {line}): {hint}", byte=byte + at
        ) from None
    if nul >= 0:
        _raise_nul(path, data, nul, first_line, byte)
    return text


def _raise_nul(path: PathArg, data: bytes, at: int, first_line: int, byte: int) -> None:
    line = _line_at(data, at, first_line)
    raise FormatError(
        path,
        line,
        f"NUL byte at byte {byte + at} (line {line}): binary data, not a text file",
        byte=byte + at,
    )


def iter_chunks(
    path: PathArg, size: int | None = None, max_line: int = MAX_LINE
) -> Iterator[Chunk]:
    """Decoded text of the whole file in pieces that end at line ends (see module doc).

    The file is opened at once (so a missing file fails here, not at the first ``next``)."""
    f, kind, raw = _open_binary(path)
    return _chunks(path, f, kind, raw, size or CHUNK_BYTES, max_line)


def _human(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 and n % (1 << 20) == 0 else f"{n} bytes"


def _last_line_end(block: bytes) -> int:
    """Where the text after the block's last complete line starts (0: no line end). A
    ``\r`` that ends the block may be the first half of ``\r\n``: it waits for the next."""
    end = len(block) - 1 if block.endswith(b"\r") else len(block)
    cut = block.rfind(b"\n", 0, end) + 1
    if b"\r" in block:
        cut = max(cut, block.rfind(b"\r", 0, end) + 1)
    return cut


def _chunks(
    path: PathArg, f: _ByteStream, kind: str | None, raw: BinaryIO, size: int, max_line: int
) -> Iterator[Chunk]:
    try:
        carry: list[bytes] = []  # the unfinished last line, in the blocks it came in
        carried = 0  # its length
        carry_at = 0  # byte offset of carry in the decompressed stream
        done = 0
        line = 1
        first = True
        while True:
            block = _read_block(path, f, size, kind, done)
            done += len(block)
            if kind is not None and done > EXPANSION_FLOOR:
                _check_expansion(path, kind, raw, done)
            if block:
                cut = _last_line_end(block)
                if cut == 0:
                    if b"\x00" in block:  # binary data (/dev/zero): say so at once
                        nul = block.index(b"\x00")
                        raise FormatError(
                            path,
                            line,
                            f"NUL byte at byte {done - len(block) + nul} (line {line}): "
                            "binary data, not a text file",
                            byte=done - len(block) + nul,
                        )
                    carry.append(block)
                    carried += len(block)
                    if carried > max_line:
                        raise _too_long(path, line, max_line, carry_at)
                    continue
                if carried and carried + _first_line_end(block) > max_line:
                    raise _too_long(path, line, max_line, carry_at)
                # one copy: the carried line and the block up to its last line end
                if carry or cut < len(block):
                    piece = b"".join((*carry, memoryview(block)[:cut]))
                else:
                    piece = block
                carry = [block[cut:]] if cut < len(block) else []
                carried = len(block) - cut
            elif carry:
                piece, carry, carried = b"".join(carry) + b"\n", [], 0
            else:
                return
            at = carry_at
            carry_at += len(piece)
            if first:
                first = False
                if piece.startswith(_BOM):
                    piece = piece[3:]
                    at += 3
            text = _decode(path, piece, line, at)
            if "\r" in text:
                text = text.replace("\r\n", "\n")
                if "\r" in text:
                    text = text.replace("\r", "\n")
                n = text.count("\n")
            else:  # counted on the bytes with numpy: many times faster than str.count
                n = int(np.count_nonzero(np.frombuffer(piece, dtype=np.uint8) == 10))
            yield Chunk(text, line, n, at)
            line += n
    finally:
        f.close()


def _first_line_end(block: bytes) -> int:
    ends = [i for i in (block.find(b"\n"), block.find(b"\r")) if i >= 0]
    return min(ends) if ends else len(block)


def _too_long(path: PathArg, line: int, max_line: int, byte: int) -> FormatError:
    return FormatError(path, line, f"line longer than {_human(max_line)}", byte=byte)


def _check_expansion(path: PathArg, kind: str, raw: BinaryIO, done: int) -> None:
    try:
        read = raw.tell()
    except OSError:
        return
    if done > MAX_EXPANSION * max(read, 1):
        raise FormatError(
            path,
            None,
            f"the {kind} data expands more than {MAX_EXPANSION} times ({done} bytes from "
            f"{read}): a decompression bomb, not a text file",
            byte=done,
        )


@contextmanager
def open_chunks(
    path: PathArg, size: int | None = None, max_line: int = MAX_LINE
) -> Iterator[Iterator[Chunk]]:
    """:func:`iter_chunks` as a context manager that always closes the file. ``size`` is
    the chunk size in bytes (default :data:`CHUNK_BYTES`, looked up at call time);
    ``max_line`` the longest line taken."""
    f, kind, raw = _open_binary(path)
    try:
        yield _chunks(path, f, kind, raw, size or CHUNK_BYTES, max_line)
    finally:
        f.close()


def _lines(chunks: Iterator[Chunk]) -> Iterator[str]:
    for chunk in chunks:
        # StringIO with newline="\n" splits on \n only (str.splitlines would also split on
        # form feeds and other separators, and line numbers would drift)
        yield from io.StringIO(chunk.text, newline="\n")


@contextmanager
def open_text(path: PathArg, max_line: int = MAX_LINE) -> Iterator[Iterator[str]]:
    """``with open_text(p) as lines: for line in lines: ...`` over any supported file.

    Lines end with ``\\n``. Opening problems are raised at once; decoding and decompression
    errors while iterating, as :class:`FormatError` naming the byte offset and line.
    """
    with open_chunks(path, max_line=max_line) as chunks:
        yield _lines(chunks)


_CONTENT = re.compile(r"\S")
_DATA = re.compile(r"^[^\S\n]*[^\s#]", re.M)  # a line whose first non-blank is not '#'
_LINE_END = re.compile(rb"\r\n?|\n")


def head_text(
    path: PathArg, limit: int = 1 << 16, comments: bool = False, max_line: int = MAX_LINE
) -> tuple[int, str]:
    """``(first_line, text)`` for format detection: about ``limit`` bytes or more of whole
    lines from the first line that is not blank (with ``comments``, not a ``#`` comment
    either), ``first_line`` its number; ``(1, "")`` when there is none. Leading blank lines
    are read past however many there are, in constant memory."""
    content = _DATA if comments else _CONTENT
    with open_chunks(path, limit, max_line) as chunks:
        for chunk in chunks:
            found = content.search(chunk.text)
            if found is None:
                continue
            text = chunk.text
            start = text.rfind("\n", 0, found.start()) + 1  # where that line starts
            head = text[start:]
            if len(head) < limit // 2:  # a few lines only: take the next piece too
                head += next(chunks, Chunk("", 0, 0, 0)).text
            return chunk.first_line + text.count("\n", 0, start), head
    return 1, ""


def _reading(stream: BinaryIO, name: str) -> Any:
    """The stream's read function; a stream that cannot be read (standard input redirected
    from a directory) raises a FormatError naming it instead of an OSError."""
    read = getattr(stream, "read1", stream.read)

    def reading(size: int) -> bytes:
        try:
            return bytes(read(size))
        except OSError as exc:
            raise FormatError(name, None, f"cannot read: {exc.strerror or exc}") from None

    return reading


def iter_stream_lines(
    stream: BinaryIO, name: str = "stdin", max_line: int = MAX_COLUMN_LINE
) -> Iterator[tuple[int, str]]:
    """``(number, line)`` for each line of a byte stream (standard input), without its line
    end, decoded and checked as files are (strict UTF-8, a leading BOM dropped, no NUL,
    ``\\n``, ``\\r\\n`` or ``\\r`` ending lines, at most ``max_line`` bytes), each as soon
    as its line end has arrived: a program feeding a line and waiting for the answer gets
    it. Errors are FormatErrors naming ``name``, the line and the byte."""
    read = _reading(stream, name)
    buf = bytearray()  # the unfinished line (grown in place: a slow pipe may hand over
    at = 0  # one byte at a time); `at` is its offset in the stream
    number = 1
    skip_lf = False  # the last line ended with \r: a \n arriving next belongs to it
    while True:
        block = read(1 << 16)
        if not block:
            break
        if skip_lf and block.startswith(b"\n"):
            block = block[1:]
            at += 1
        skip_lf = False
        scanned = len(buf)  # holds no line end: only the new bytes are searched
        buf += block
        start = 0
        for end in _LINE_END.finditer(buf, scanned):
            if end.group() == b"\r" and end.end() == len(buf):
                skip_lf = True  # \r\n may be split between two reads
            if end.start() - start > max_line:
                raise _too_long(name, number, max_line, at + start)
            # decoded with its line end, as the file readers decode it: a broken UTF-8
            # sequence before "\n" is an invalid continuation, not an end of data
            text = _stream_line(name, bytes(buf[start : end.end()]), number, at + start)
            yield number, text[: len(text) - len(end.group())]
            start = end.end()
            number += 1
        if start:
            del buf[:start]
            at += start
        if b"\x00" in block and buf:  # binary data (/dev/zero): said before its line ends
            _stream_line(name, bytes(buf), number, at)
        if len(buf) > max_line:
            raise _too_long(name, number, max_line, at)
    if buf:  # an unended last line, decoded as the file readers decode it: with a line end
        yield number, _stream_line(name, bytes(buf) + b"\n", number, at)[:-1]


def _stream_line(name: str, data: bytes, number: int, at: int) -> str:
    if at == 0 and data.startswith(_BOM):
        return _decode(name, data[3:], number, 3)
    return _decode(name, data, number, at)


def copy_stream(source: BinaryIO, target: BinaryIO, name: str = "stdin") -> None:
    """Copy a byte stream (standard input) to a file for a reader, refusing at once what
    the reader would refuse at the end of an endless stream: a NUL byte (`/dev/zero`) or a
    line longer than :data:`MAX_COLUMN_LINE`. A compressed stream is copied as it is (its
    reader checks it, expansion included)."""
    read = _reading(source, name)
    block = read(1 << 16)
    plain = not any(block.startswith(magic) for magic, _ in _MAGIC)
    done = 0
    line = 1
    since_end = 0  # bytes since the last line end
    while block:
        if plain:
            if b"\x00" in block:
                at = done + block.index(b"\x00")
                raise FormatError(
                    name, line, f"NUL byte at byte {at}: binary data, not a text file", byte=at
                )
            last = max(block.rfind(b"\n"), block.rfind(b"\r"))
            since_end = since_end + len(block) if last < 0 else len(block) - last - 1
            if since_end > MAX_COLUMN_LINE:
                raise _too_long(name, line, MAX_COLUMN_LINE, done)
            line += block.count(b"\n")
        target.write(block)
        done += len(block)
        block = read(1 << 16)
