"""Documents: the three classic SMART collections, TREC SGML in the layouts of the TREC
collections (tests/data/formats/trec_docs.sgml), JSON Lines and TSV; streaming."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from judgeapp.formats import FormatError, iter_documents, read_documents

CLASSIC = [
    ("cranfield", "cran.all.1400", 1400),
    ("cisi", "CISI.ALL", 1460),
    ("cacm", "cacm.all", 3204),
]


@pytest.mark.parametrize(("folder", "name", "count"), CLASSIC)
def test_classic_collections(shared_data: Path, folder: str, name: str, count: int) -> None:
    path = shared_data / "collections" / folder / name
    raw = path.read_bytes().decode("ascii")
    ids = re.findall(r"^\.I (\S+)", raw, re.M)
    docs = read_documents(path)
    assert len(docs) == len(ids) == count
    assert [d.docno for d in docs] == ids  # as written: ".I 1" is document "1"
    starts = [i + 1 for i, line in enumerate(raw.splitlines()) if line.startswith(".I ")]
    assert [d.line for d in docs] == starts
    assert not any("\r" in d.text or "\r" in d.title for d in docs)
    # every record has a .T; the title is its text on one line
    first_title = re.search(r"^\.T\r?\n(.*?)^\.[A-Z]", raw, re.M | re.S).group(1)
    assert docs[0].title == " ".join(first_title.split())


def test_cranfield_empty_documents_are_kept(shared_data: Path) -> None:
    docs = {
        d.docno: d
        for d in read_documents(shared_data / "collections" / "cranfield" / "cran.all.1400")
    }
    for docno in ("471", "995"):
        assert (docs[docno].title, docs[docno].text) == ("", "")
    first = docs["1"]
    assert (
        first.title == "experimental investigation of the aerodynamics of a wing in a slipstream ."
    )
    assert first.fields == {"authors": "brenckman,m.", "bibliography": "j. ae. scs. 25, 1958, 324."}
    assert first.text.startswith("experimental investigation of the aerodynamics of a\nwing")


def test_cisi_repeated_author_markers_are_joined(shared_data: Path) -> None:
    path = shared_data / "collections" / "cisi" / "CISI.ALL"
    records = re.split(r"^\.I (\S+)\n", path.read_text(), flags=re.M)[1:]
    several = {
        docno: re.findall(r"^\.A\n(.*?)\n", body, re.M)
        for docno, body in zip(records[::2], records[1::2], strict=True)
        if body.count("\n.A\n") > 1
    }
    assert len(several) == 109  # 81 + 17 + 10 + 1 records with 2 to 5 author markers
    docs = {d.docno: d for d in read_documents(path)}
    for docno, authors in several.items():
        assert docs[docno].fields["authors"] == "\n".join(a.rstrip() for a in authors)


def test_cacm_fields(shared_data: Path) -> None:
    doc = read_documents(shared_data / "collections" / "cacm" / "cacm.all")[0]
    assert doc.title == "Preliminary Report-International Algebraic Language"
    assert doc.fields["authors"] == "Perlis, A. J.\nSamelson,K."
    assert doc.fields["bibliography"] == "CACM December, 1958"
    assert doc.fields["cross_references"].startswith("100\t5\t1")
    assert doc.text == ""  # the first CACM record has no abstract


def test_trec_sgml_layouts(test_data: Path) -> None:
    path = test_data / "formats" / "trec_docs.sgml"
    raw = path.read_text()
    docs = read_documents(path)
    assert [d.docno for d in docs] == [
        " ".join(m.split()) for m in re.findall(r"<DOCNO>(.*?)</DOCNO>", raw)
    ]
    by = {d.docno: d for d in docs}
    ft = by["FT911-1796"]
    assert ft.title == "FT 14 MAY 91 / Harbour board approves second container terminal"
    assert ft.text.startswith("THE harbour board yesterday approved plans")
    assert ft.fields["byline"] == "By A CORRESPONDENT"
    assert ft.fields["pub"] == "The Financial Times"
    assert ft.line == 1
    la = by["LA010189-0001"]
    assert la.title == "A QUIET YEAR FOR GARDEN NOVELS"  # inside <P>
    assert la.text.endswith("more weeds & fewer roses.")  # paragraphs kept, &amp; decoded
    assert "\n\n" in la.text
    assert la.fields["date"] == "January 1, 1989, Sunday, Home Edition"
    fbis = by["FBIS3-1"]
    assert fbis.title == "Regional Council Opens Spring Session"  # <TI> inside <HEADER>
    assert "regional council opened its spring session" in fbis.text
    assert fbis.fields["ht"] == '"cr00000011094001"'
    wsj = by["WSJ870324-0001"]
    assert wsj.title.startswith("Tool Maker Reports Higher Quarterly Profit")
    assert "AT&T's catalogue" in wsj.text  # a bare & stays as it is
    ap = by["AP880212-0001"]
    assert ap.title == "Old Lighthouse Reopens to Visitors"  # the first <HEAD>
    assert ap.fields["head"] == "Eds: Corrects spelling of keeper's name"
    assert ap.text.endswith("stairs & lamp room.")  # &#38; decoded
    fr = by["FR940104-0-00001"]
    assert fr.text == "Rules for the labelling of seed packets &hyph; second notice."
    assert by["NO-TITLE-1"].text.startswith("Loose text with no element")


def test_trec_sgml_gzipped_and_streamed(test_data: Path, tmp_path: Path) -> None:
    source = (test_data / "formats" / "trec_docs.sgml").read_bytes()
    path = tmp_path / "docs.gz"
    path.write_bytes(gzip.compress(source + b"<DOC>\n<TEXT>no number</TEXT>\n</DOC>\n"))
    stream = iter_documents(path)
    seen = [next(stream).docno for _ in range(7)]  # documents arrive before the bad one
    assert seen[0] == "FT911-1796"
    bad_line = source.count(b"\n") + 1
    with pytest.raises(FormatError, match=rf"docs\.gz:{bad_line}: document has no <DOCNO>"):
        next(stream)


def test_json_lines_documents(tmp_path: Path) -> None:
    records = [
        {"id": "d1", "contents": "first text"},
        {"_id": "d2", "title": "A title", "text": "second", "metadata": {"url": "u"}},
        {"docno": 3, "body": "third", "abstract": "kept in fields"},
    ]
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    docs = read_documents(path)
    assert [(d.docno, d.title, d.text) for d in docs] == [
        ("d1", "", "first text"),
        ("d2", "A title", "second"),
        ("3", "", "third"),
    ]
    assert docs[1].fields == {"metadata": {"url": "u"}}
    assert docs[2].fields == {"abstract": "kept in fields"}


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["d1\tone", "d2\ttwo"], [("d1", "", "one", {}), ("d2", "", "two", {})]),
        (["d1\tT1\tone"], [("d1", "T1", "one", {})]),
        (["D1\thttp://x\tT1\tbody"], [("D1", "T1", "body", {"url": "http://x"})]),
    ],
)
def test_tsv_layouts(tmp_path: Path, lines: list[str], expected: list[tuple]) -> None:
    path = tmp_path / "c.tsv"
    path.write_text("\n".join(lines) + "\n")
    assert [(d.docno, d.title, d.text, d.fields) for d in read_documents(path)] == expected


def test_duplicate_docno_across_a_json_file(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(
        '{"id": "a", "text": "x"}\n{"id": "b", "text": "y"}\n{"id": "a", "text": "z"}\n'
    )
    with pytest.raises(FormatError, match=r"c\.jsonl:3: duplicate docno a at lines 1 and 3"):
        read_documents(path)


def test_doc_id_attribute_when_there_is_no_docno(tmp_path: Path) -> None:
    """AQUAINT-2 style: <DOC id="..." type="story"> and no <DOCNO>."""
    path = tmp_path / "aquaint.sgml"
    path.write_text(
        '<DOC id="APW_ENG_19980601.0001" type="story" >\n<HEADLINE>\nA headline\n</HEADLINE>\n'
        "<TEXT>\n<P>\nOne.\n</P>\n</TEXT>\n</DOC>\n<DOC id='XIN_ENG_1.2'>\n<TEXT>Two.</TEXT>\n"
        "</DOC>\n"
    )
    docs = read_documents(path)
    assert [(d.docno, d.title, d.text, d.fields, d.line) for d in docs] == [
        ("APW_ENG_19980601.0001", "A headline", "One.", {"type": "story"}, 1),
        ("XIN_ENG_1.2", "", "Two.", {}, 11),
    ]
