"""Format detection from content: every real file, and names that lie."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from judgeapp.formats import FORMATS, FormatError, detect_format

REAL = [
    # (path under ../shared/data, kind, format)
    *[(f"topics/topics.adhoc.{r}.txt", "topics", "trec") for r in
      ("51-100", "101-150", "151-200", "301-350", "351-400", "401-450", "451-550")],
    ("topics/topics.cacm.txt", "topics", "trec"),
    ("topics/topics.core17.txt", "topics", "trec"),
    ("topics/topics.core18.txt", "topics", "trec"),
    ("topics/topics.robust04.txt", "topics", "trec"),
    ("topics/topics.robust05.txt", "topics", "trec"),
    ("topics/topics.terabyte04.701-750.txt", "topics", "trec"),
    ("topics/topics.terabyte05.751-800.txt", "topics", "trec"),
    ("topics/topics.terabyte06.801-850.txt", "topics", "trec"),
    ("robust03/topics.robust04.301-450.601-700.txt", "topics", "trec"),
    *[(f"topics/topics.covid-round{n}.xml", "topics", "xml") for n in range(1, 6)],
    *[(f"topics/topics.web.{r}.txt", "topics", "xml") for r in
      ("51-100", "101-150", "151-200", "201-250", "251-300")],
    ("topics/topics.dl19-doc.txt", "topics", "tsv"),
    ("topics/topics.dl19-passage.txt", "topics", "tsv"),
    ("topics/topics.dl20.txt", "topics", "tsv"),
    ("topics/topics.json", "topics", "jsonl"),  # JSON, though not topics (see read tests)
    ("collections/cranfield/cran.qry", "topics", "smart"),
    ("collections/cisi/CISI.QRY", "topics", "smart"),
    ("collections/cacm/query.text", "topics", "smart"),
    ("collections/cranfield/cran.all.1400", "docs", "smart"),
    ("collections/cisi/CISI.ALL", "docs", "smart"),
    ("collections/cacm/cacm.all", "docs", "smart"),
    ("collections/cranfield/cranqrel", "qrels", "cranqrel"),
    ("collections/cisi/CISI.REL", "qrels", "cisi"),
    ("collections/cacm/qrels.text", "qrels", "cacm"),
    *[(f"qrels/qrels.{n}.txt", "qrels", "trec") for n in
      ("adhoc.351-400", "antique_test", "core18", "covid-round1", "dl19-doc", "dl19-passage",
       "dl20-doc", "dl20-passage", "web.201-250")],
    ("robust03/robust03_qrels.txt", "qrels", "trec"),
    *[(f"trec_eval-10.0/test/{n}", "qrels", "trec") for n in
      ("qrels.test", "qrels.rel_level", "qrels.test.with-comments", "qrels.comment.test",
       "qrels-302.test", "qrels.123", "qrels.comments.123")],
    *[(f"trec_eval-10.0/test/{n}", "run", "trec") for n in
      ("results.test", "results.trunc", "results.comment.test", "results-302.test")],
    *[(f"robust03/runs/input.{n}.gz", "run", "trec") for n in
      ("InexpC2", "MU03rob01", "NLPR03vb10", "SABIR03BASE", "Sel50", "THUIRr0301",
       "UAmsT03RDesc", "UIUC03Rd1", "VTcdhgp1", "aplrob03a", "fub03IeOLKe3", "humR03dc",
       "oce03noXbmD", "pircRBa1", "rutcor03100", "uic0301", "uwmtCR0")],
]  # fmt: skip


@pytest.mark.parametrize(("name", "kind", "fmt"), REAL, ids=[f"{k}:{n}" for n, k, _ in REAL])
def test_every_real_file(shared_data: Path, name: str, kind: str, fmt: str) -> None:
    assert fmt in FORMATS[kind]
    assert detect_format(shared_data / name, kind) == fmt


def test_all_topic_and_qrels_files_are_in_the_table(shared_data: Path) -> None:
    listed = {name for name, _, _ in REAL}
    on_disk = {
        str(p.relative_to(shared_data))
        for folder in ("topics", "qrels")
        for p in (shared_data / folder).iterdir()
    }
    assert on_disk <= listed


def test_names_do_not_decide(shared_data: Path, tmp_path: Path) -> None:
    """A qrels file called .xml, topics called .gz (but plain), a gzipped TSV called .txt."""
    qrels = tmp_path / "judgments.xml"
    shutil.copy(shared_data / "trec_eval-10.0" / "test" / "qrels.test", qrels)
    assert detect_format(qrels, "qrels") == "trec"
    topics = tmp_path / "topics.gz"
    shutil.copy(shared_data / "topics" / "topics.robust04.txt", topics)
    assert detect_format(topics, "topics") == "trec"
    tsv = tmp_path / "queries.txt"
    tsv.write_bytes(gzip.compress((shared_data / "topics" / "topics.dl20.txt").read_bytes()))
    assert detect_format(tsv, "topics") == "tsv"


@pytest.mark.parametrize(
    ("text", "kind", "fmt"),
    [
        ('{"id": "d1", "contents": "x"}\n', "docs", "jsonl"),
        ("<DOC>\n<DOCNO> X </DOCNO>\n</DOC>\n", "docs", "trec"),
        ("d1\ttitle\ttext\n", "docs", "tsv"),
        ('[{"qid": "1", "title": "x"}]\n', "topics", "jsonl"),
        ("# comment\n\n1 Q0 d 1 2.5 tag\n", "run", "trec"),
        ("# comment\n1 0 d 1\n", "qrels", "trec"),
        ("1 184 2\n1 29 -1\n", "qrels", "cranqrel"),
        ("1\t28\t0\t0.000000\n", "qrels", "cisi"),
        ("01 1410 0 0\n02 1 0 0\n", "qrels", "cacm"),
    ],
)
def test_small_samples(tmp_path: Path, text: str, kind: str, fmt: str) -> None:
    path = tmp_path / "sample"
    path.write_text(text)
    assert detect_format(path, kind) == fmt


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("1 0 d 1\n2 0 e 0\n", "run"),  # qrels given as a run
        ("<html><body>hello</body></html>\n", "docs"),
        ("plain words\n", "qrels"),
    ],
)
def test_unknown_content_says_what_was_expected(tmp_path: Path, text: str, kind: str) -> None:
    path = tmp_path / "sample"
    path.write_text(text)
    with pytest.raises(FormatError, match=r":1: cannot tell the format from .*; expected"):
        detect_format(path, kind)


def test_unknown_kind() -> None:
    with pytest.raises(ValueError, match="unknown kind"):
        detect_format("x", "judgments")
