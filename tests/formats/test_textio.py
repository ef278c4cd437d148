"""The text layer: compression by content, strict UTF-8 with exact positions, line ends."""

from __future__ import annotations

import bz2
import gzip
import lzma
import zlib
from pathlib import Path

import pytest

from judgeapp.formats import FormatError, open_text, textio
from judgeapp.formats.textio import compression_of, iter_chunks

TEXT = "301 0 FT911-1796 1\n302 0 caf\u00e9-2 0\n"


def lines_of(path: Path) -> list[str]:
    with open_text(path) as lines:
        return list(lines)


@pytest.mark.parametrize(
    ("name", "pack"),
    [
        ("plain.txt", str.encode),
        ("gzipped-without-suffix.txt", lambda t: gzip.compress(t.encode())),
        ("bz2.txt", lambda t: bz2.compress(t.encode())),
        ("xz.qrels", lambda t: lzma.compress(t.encode())),
    ],
)
def test_compression_is_recognised_by_content(tmp_path: Path, name: str, pack) -> None:
    path = tmp_path / name
    path.write_bytes(pack(TEXT))
    assert lines_of(path) == TEXT.splitlines(keepends=True)


def test_a_gz_suffix_on_plain_text_is_read_as_plain(tmp_path: Path) -> None:
    path = tmp_path / "not-really.gz"
    path.write_text(TEXT, encoding="utf-8")
    assert compression_of(path) is None
    assert lines_of(path) == TEXT.splitlines(keepends=True)


def test_concatenated_gzip_members_and_padding(tmp_path: Path) -> None:
    path = tmp_path / "members.gz"
    path.write_bytes(gzip.compress(b"a 1\n") + gzip.compress(b"b 2\n") + b"\x00" * 16)
    assert lines_of(path) == ["a 1\n", "b 2\n"]


def test_bom_crlf_and_cr_line_ends(tmp_path: Path) -> None:
    path = tmp_path / "dos.txt"
    path.write_bytes(b"\xef\xbb\xbfone\r\ntwo\rthree\nfour")
    assert lines_of(path) == ["one\n", "two\n", "three\n", "four\n"]


def test_chunks_end_at_line_ends_and_count_lines(tmp_path: Path) -> None:
    path = tmp_path / "many.txt"
    body = "".join(f"line {i} {'x' * (i % 7)}\n" for i in range(1, 501))
    path.write_text(body, encoding="utf-8")
    chunks = list(iter_chunks(path, size=64))
    assert len(chunks) > 10
    assert "".join(c.text for c in chunks) == body
    for chunk in chunks:
        assert chunk.text.endswith("\n")
        first = chunk.text.split("\n", 1)[0]
        assert first.startswith(f"line {chunk.first_line} ")
        assert chunk.byte == len(body[: body.index(first + "\n")].encode())


def test_not_utf8_names_byte_and_line(tmp_path: Path) -> None:
    data = "a 0 b 1\nc 0 d 1\ne 0 caf\u00e9 1\n".encode("latin-1")
    path = tmp_path / "latin1.txt"
    path.write_bytes(data)
    with pytest.raises(FormatError) as caught:
        lines_of(path)
    at = data.index(b"\xe9")
    assert f"not UTF-8 at byte {at} (line 3)" in str(caught.value)
    assert (caught.value.line, caught.value.byte) == (3, at)


def test_not_utf8_in_a_later_chunk_keeps_absolute_positions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(textio, "CHUNK_BYTES", 32)
    good = "".join(f"{i} 0 doc{i} 1\n" for i in range(40)).encode()
    path = tmp_path / "late.txt"
    path.write_bytes(good + b"40 0 d\xff 1\n")
    with pytest.raises(FormatError, match=rf"not UTF-8 at byte {len(good) + 6} \(line 41\)"):
        lines_of(path)


def test_gzip_positions_are_in_the_decompressed_text(tmp_path: Path) -> None:
    path = tmp_path / "bad.gz"
    path.write_bytes(gzip.compress(b"ok line\nbad \x80 line\n"))
    with pytest.raises(FormatError, match=r"not UTF-8 at byte 12 \(line 2\)"):
        lines_of(path)


def test_nul_byte_is_binary(tmp_path: Path) -> None:
    path = tmp_path / "nul.txt"
    path.write_bytes(b"first\nsec\x00ond\n")
    with pytest.raises(FormatError, match=r"nul.txt:2: NUL byte at byte 9 \(line 2\)"):
        lines_of(path)


def test_truncated_and_corrupt_compressed_files(tmp_path: Path) -> None:
    whole = gzip.compress(b"".join(b"%d 0 doc%d 1\n" % (i, i) for i in range(2000)))
    cut = tmp_path / "cut.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    readable = len(zlib.decompressobj(31).decompress(whole[: len(whole) // 2]))
    with pytest.raises(FormatError, match=rf"cut\.gz: byte {readable}: truncated gzip file"):
        lines_of(cut)
    bad = bytearray(whole)
    bad[-6] ^= 0xFF  # inside the CRC/length trailer
    broken = tmp_path / "broken.gz"
    broken.write_bytes(bytes(bad))
    with pytest.raises(FormatError, match=r"broken\.gz: byte \d+: corrupt gzip data"):
        lines_of(broken)
    xz = tmp_path / "cut.xz"
    xz.write_bytes(lzma.compress(b"abc\n" * 1000)[:-20])
    with pytest.raises(FormatError, match=r"cut\.xz: byte \d+: (truncated|corrupt) xz"):
        lines_of(xz)


def test_missing_file_is_a_format_error_at_open(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="cannot open"):
        with open_text(tmp_path / "absent.txt"):
            pass


def test_pathlike_and_str_paths(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_text("x\n", encoding="utf-8")
    assert lines_of(path) == lines_of(str(path)) == ["x\n"]


@pytest.mark.parametrize("fast", [False, True])
def test_fast_gzip_reads_the_same_bytes_and_fails_as_zlib(tmp_path: Path, fast: bool) -> None:
    """The bulk reader's gzip (ISA-L when installed) gives zlib's bytes, members and
    padding included, and raises zlib.error on bad data (it then hands the file to the
    line reader, which words the error)."""
    body = b"".join(b"%d 0 doc%d 1\n" % (i, i) for i in range(5000))
    path = tmp_path / "members.gz"
    path.write_bytes(gzip.compress(body) + gzip.compress(b"tail 1\n") + b"\x00" * 9)
    f, kind, _ = textio._open_binary(path, fast=fast)
    parts = []
    while block := f.read(1000):
        assert len(block) <= 1000
        parts.append(block)
    f.close()
    assert kind == "gzip" and b"".join(parts) == body + b"tail 1\n"
    whole = bytearray(gzip.compress(body))
    whole[-6] ^= 0xFF  # the CRC
    path.write_bytes(bytes(whole))
    f, _, _ = textio._open_binary(path, fast=fast)
    with pytest.raises(zlib.error):
        while f.read(1 << 16):
            pass
    f.close()
