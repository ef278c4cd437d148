"""read_qrels and write_qrels on every real qrels file, the classic collections' rules, and
round trips (also through pytrec_eval's parser)."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

from judgeapp.formats import (
    FormatError,
    read_documents,
    read_qrels,
    read_topics,
    textio,
    write_qrels,
)

TREC_QRELS = [
    "qrels/qrels.adhoc.351-400.txt",
    "qrels/qrels.antique_test.txt",
    "qrels/qrels.core18.txt",
    "qrels/qrels.covid-round1.txt",
    "qrels/qrels.dl19-doc.txt",
    "qrels/qrels.dl19-passage.txt",
    "qrels/qrels.dl20-doc.txt",
    "qrels/qrels.dl20-passage.txt",
    "qrels/qrels.web.201-250.txt",
    "robust03/robust03_qrels.txt",
    "trec_eval-10.0/test/qrels.test",
    "trec_eval-10.0/test/qrels.rel_level",
    "trec_eval-10.0/test/qrels.test.with-comments",
    "trec_eval-10.0/test/qrels.comment.test",
    "trec_eval-10.0/test/qrels-302.test",
    "trec_eval-9.0.4/test/qrels.test",
    "trec_eval-9.0.4/test/qrels.rel_level",
]

COLLECTIONS = "collections"


def plain_rows(path: Path) -> list[tuple[str, str, int, int]]:
    """The oracle: (qid, docno, grade, line) of every non-comment line, split by hand."""
    rows = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        p = line.split()
        if p and not line.startswith("#"):
            rows.append((p[0], p[2], int(p[3]), line_no))
    return rows


@pytest.mark.parametrize("name", TREC_QRELS)
def test_real_trec_qrels(shared_data: Path, name: str) -> None:
    path = shared_data / name
    qrels = read_qrels(path)
    rows = plain_rows(path)
    assert len(qrels) == len(rows)
    got = zip(qrels.qids, qrels.docnos, qrels.grades.tolist(), qrels.lines.tolist(), strict=True)
    assert list(got) == rows
    assert qrels.grades.dtype == np.int64


def test_comment_files_keep_hash_inside_docnos(shared_data: Path) -> None:
    test = shared_data / "trec_eval-10.0" / "test"
    with_comments = read_qrels(test / "qrels.test.with-comments")
    plain = [r[:3] for r in plain_rows(test / "qrels.test")]
    # the same judgments as qrels.test, except that one docno carries a '#' (line 8)
    assert len(with_comments) == len(plain) == 3681
    assert [r for r in with_comments if r not in plain] == [("301", "CR#93E-1860", 0)]
    assert with_comments.lines[with_comments.docnos.index("CR#93E-1860")] == 8
    assert any("#" in d for d in read_qrels(test / "qrels.comment.test").docnos)


def test_graded_and_negative_and_iteration_columns(shared_data: Path) -> None:
    web = read_qrels(shared_data / "qrels" / "qrels.web.201-250.txt")
    assert sorted(set(web.grades.tolist())) == [-2, 0, 1, 2, 3, 4]
    antique = read_qrels(shared_data / "qrels" / "qrels.antique_test.txt")
    assert sorted(set(antique.grades.tolist())) == [0, 1, 2, 3]


@pytest.mark.parametrize("name", ["qrels.123", "qrels.comments.123"])
def test_judgment_group_qrels_have_duplicates_as_trec_eval_says(
    shared_data: Path, name: str
) -> None:
    """These are -R qrels_jg files (column 2 is a judgment group); read as plain qrels they
    repeat docnos, which trec_eval's plain mode also refuses ("duplicate docs")."""
    path = shared_data / "trec_eval-10.0" / "test" / name
    seen: dict[tuple[str, str], int] = {}
    first_dup = None
    for q, d, _, line in plain_rows(path):
        if (q, d) in seen:
            first_dup = (q, d, seen[q, d], line)
            break
        seen[q, d] = line
    assert first_dup is not None
    q, d, a, b = first_dup
    with pytest.raises(
        FormatError, match=f":{b}: duplicate docno {d} for topic {q} at lines {a} and {b}"
    ):
        read_qrels(path)


# ---- the classic collections ---------------------------------------------------------

CLEVERDON = {1: 3, 2: 2, 3: 1, 4: 1, -1: 0}


def test_cranqrel(shared_data: Path) -> None:
    path = shared_data / COLLECTIONS / "cranfield" / "cranqrel"
    lines = [line.split() for line in path.read_text().splitlines() if line.strip()]
    qrels = read_qrels(path)
    assert len(qrels) == len(lines) == 1837
    assert qrels.qids == [str(int(q)) for q, _, _ in lines]
    assert qrels.docnos == [str(int(d)) for _, d, _ in lines]
    assert qrels.grades.tolist() == [CLEVERDON[int(c)] for _, _, c in lines]
    assert set(qrels.qids) == {str(n) for n in range(1, 226)}


def test_cisi_rel(shared_data: Path) -> None:
    path = shared_data / COLLECTIONS / "cisi" / "CISI.REL"
    lines = [line.split() for line in path.read_text().splitlines() if line.strip()]
    qrels = read_qrels(path)
    assert len(qrels) == len(lines) == 3114
    assert list(qrels) == [(str(int(q)), str(int(d)), 1) for q, d, _, _ in lines]
    assert len(set(qrels.qids)) == 76


def test_cacm_qrels_zero_padded_query_numbers(shared_data: Path) -> None:
    path = shared_data / COLLECTIONS / "cacm" / "qrels.text"
    lines = [line.split() for line in path.read_text().splitlines() if line.strip()]
    qrels = read_qrels(path)
    assert lines[0][0] == "01" and qrels.qids[0] == "1"
    assert list(qrels) == [(str(int(q)), str(int(d)), 1) for q, d, _, _ in lines]
    assert len(set(qrels.qids)) == 52


@pytest.mark.parametrize(
    ("folder", "qrels_name", "queries", "docs"),
    [
        ("cranfield", "cranqrel", "cran.qry", "cran.all.1400"),
        ("cisi", "CISI.REL", "CISI.QRY", "CISI.ALL"),
        ("cacm", "qrels.text", "query.text", "cacm.all"),
    ],
)
def test_classic_qrels_name_existing_queries_and_documents(
    shared_data: Path, folder: str, qrels_name: str, queries: str, docs: str
) -> None:
    base = shared_data / COLLECTIONS / folder
    qrels = read_qrels(base / qrels_name)
    qids = {t.qid for t in read_topics(base / queries)}
    docnos = {d.docno for d in read_documents(base / docs)}
    assert set(qrels.qids) <= qids
    assert set(qrels.docnos) <= docnos


# ---- round trips ---------------------------------------------------------------------


@pytest.mark.parametrize("name", TREC_QRELS)
def test_round_trip_through_write_qrels(shared_data: Path, tmp_path: Path, name: str) -> None:
    original = read_qrels(shared_data / name)
    out = tmp_path / "out.qrels"
    assert write_qrels(original, out) == len(original)
    again = read_qrels(out)
    assert list(again) == list(original)
    with open(out) as fh:
        parsed = pytrec_eval.parse_qrel(fh)
    expected: dict[str, dict[str, int]] = {}
    for q, d, g in original:
        expected.setdefault(q, {})[d] = g
    assert parsed == expected


def test_round_trip_of_classic_qrels(shared_data: Path, tmp_path: Path) -> None:
    original = read_qrels(shared_data / COLLECTIONS / "cranfield" / "cranqrel")
    out = tmp_path / "cran.qrels.gz"
    write_qrels(original, out)
    assert gzip.open(out, "rt").readline() == "1 0 184 2\n"
    assert list(read_qrels(out)) == list(original)


def test_write_qrels_to_a_stream_from_plain_rows() -> None:
    out = io.StringIO()
    write_qrels([("01", "d#1", 3), ("1", "x", np.int64(-1))], out)
    assert out.getvalue() == "01 0 d#1 3\n1 0 x -1\n"


@pytest.mark.parametrize("row", [("1", "a b", 1), ("", "d", 1), ("1", "d", 1.5)])
def test_write_qrels_refuses_what_qrels_cannot_hold(row: tuple) -> None:
    with pytest.raises(ValueError):
        write_qrels([row], io.StringIO())


# ---- hand cases ----------------------------------------------------------------------


def test_comments_blank_lines_and_spacing(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("# header\n\n1\t0\ta#b\t2\n  # indented comment\n2  Q0  c  -1 \r\n")
    qrels = read_qrels(path)
    assert list(qrels) == [("1", "a#b", 2), ("2", "c", -1)]
    assert qrels.lines.tolist() == [3, 5]


@pytest.mark.parametrize("chunk", [8, 50])
def test_chunk_boundaries_change_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    path = tmp_path / "q.txt"
    rows = [f"{q} 0 d{i} {i % 4}\n" for q in (3, 1, 2) for i in range(30)]
    rows.insert(17, "# in the middle\n")
    path.write_text("".join(rows))
    whole = read_qrels(path)
    monkeypatch.setattr(textio, "CHUNK_BYTES", chunk)
    chunked = read_qrels(path)
    assert list(chunked) == list(whole)
    assert chunked.lines.tolist() == whole.lines.tolist()


def test_format_override(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("01 1410 0 0\n01 1572 0 0\n")
    assert list(read_qrels(path)) == [("1", "1410", 1), ("1", "1572", 1)]  # detected: cacm
    # read as TREC, the third column would be a docno: "0" twice for topic 01
    with pytest.raises(FormatError, match="duplicate docno 0 for topic 01 at lines 1 and 2"):
        read_qrels(path, "trec")
    with pytest.raises(FormatError, match="unknown qrels format 'csv'"):
        read_qrels(path, "csv")


def test_only_ascii_white_space_separates_columns(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("1 0 d\u2003x 1\n1 0 y 0\n")
    assert list(read_qrels(path)) == [("1", "d\u2003x", 1), ("1", "y", 0)]
