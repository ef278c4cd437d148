"""TREC SGML read through learnt layouts (one pattern for a whole document of a layout seen
before) against the same files read element by element (no layouts): the same documents,
fields, lines and the same error, for files of a few layouts with hostile contents."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from judgeapp.formats import FormatError, documents, textio

TAGS = [
    "TEXT",
    "TEXT",
    "TEXT",
    "HL",
    "HEADLINE",
    "HL",
    "DATE",
    "BYLINE",
    "text",
    "Text",
    "LP",
    "TI",
    "DOCNO",
    "A.B-C",
]
PIECES = [
    "word", "x", " ", "\n", "\n\n\n", "\t", "é", "日本", "&amp;", "AT&T", "<P>", "</P>", "<p>",
    "<B>", "</B>", "<", ">", "</TEXT", "</TEXT >", "</TEXT\n>", "</TEXTS>", "<TEXT>", "</HL>",
    "<TI>", "</TI>", "</DOCNO>", "<DOCNO>", "<F P=105>", "</F>", "<DOC>", "</DOC>",
]  # fmt: skip
CLOSINGS = ["<TI>ti</TI>", "<HL>hl</HL>", "</TEXT >", "</TEXT\n>", "</HL >", "</DOCNO >"]
TEXT = ["word", "x", " ", "\n", "\n\n\n", "é", "&amp;"]
content = st.one_of(
    st.lists(st.sampled_from(TEXT), max_size=8).map("".join),
    st.lists(st.sampled_from([*TEXT, "<P>", "</P>"]), max_size=12).map("".join),
    st.lists(st.sampled_from([*TEXT, *CLOSINGS, *CLOSINGS]), max_size=6).map("".join),
    st.lists(st.sampled_from(PIECES), max_size=12).map("".join),
)
gap = st.sampled_from(["\n", "\n", "", " ", "\n\t", "x"])
docno = st.sampled_from(["D"] * 20 + [" D\n", "", "a b", "&amp;", "D<B>x</B>"])


@st.composite
def sgml_files(draw: st.DrawFn) -> str:
    layout = st.tuples(st.lists(st.sampled_from(TAGS), max_size=5), st.sampled_from([0, 0, -1]))
    layouts = draw(st.lists(layout, min_size=1, max_size=3))
    docs = []
    for k in range(draw(st.integers(1, 12))):
        sep = draw(gap)
        first = draw(st.sampled_from(["DOCNO", "DOCNO", "docno"]))
        parts = []
        tags, at = draw(st.sampled_from(layouts))  # DOCNO first, or last
        for tag in tags:
            closed = draw(st.booleans()) or draw(st.booleans()) or draw(st.booleans())
            parts.append(f"<{tag}>{draw(content)}" + (f"</{tag}>" if closed else ""))
        parts.insert(at % (len(parts) + 1), f"<{first}>{draw(docno)}{k}</{first}>")
        docs.append("<DOC>" + sep + sep.join(parts) + sep + "</DOC>\n")
    return "".join(docs)


def _read(path: Path) -> tuple[list[tuple], str | None]:
    docs: list[tuple] = []
    try:
        for d in documents.iter_documents(path, "trec"):
            docs.append((d.docno, d.title, d.text, d.fields, d.line))
    except FormatError as exc:
        return docs, str(exc)
    return docs, None


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sgml_files())
# a docno is cleaned; a closing tag with white space before its '>' ends the element; a title nested in
# another element is the title when there is no title element
@example(
    "<DOC><DOCNO>1</DOCNO><TEXT>a</TEXT></DOC><DOC><DOCNO>2</DOCNO><TEXT>a</TEXT >b</TEXT></DOC>"
)
@example(
    "<DOC><DOCNO>1</DOCNO><TEXT>a</TEXT></DOC><DOC><DOCNO>2</DOCNO><TEXT>a<HL>t</HL></TEXT></DOC>"
)
def test_layouts_read_as_element_by_element(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    path = tmp_path / "docs.sgml"
    path.write_text(text, encoding="utf-8")
    fast = _read(path)
    with monkeypatch.context() as m:
        m.setattr(documents, "_MAX_LAYOUTS", 0)
        assert _read(path) == fast


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sgml_files(), st.sampled_from([1, 7, 64, 200]))
# a DOC tag in a content (any case, with attributes or white space) ends the document there,
# whether its block is taken at once from the text or tag by tag
@example(
    "<DOC><DOCNO>1</DOCNO><TEXT>a</TEXT></DOC><DOC><DOCNO>2</DOCNO><TEXT>a</doc\n>b</TEXT></DOC>",
    1 << 16,
)
@example(
    "<DOC><DOCNO>1</DOCNO><TEXT>a</TEXT></DOC>\n<DOC><DOCNO>2</DOCNO><TEXT><Doc x=1>",
    1 << 16,
)
@example(
    "<DOC><DOCNO>1</DOCNO><TEXT>a</TEXT></DOC><DOC><DOCNO>2</DOCNO><TEXT>a<DOCS></TEXT></DOC>", 9
)
def test_blocks_cut_anywhere_read_as_element_by_element(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, chunk: int
) -> None:
    """The same files in pieces of a few bytes (documents across pieces are read tag by
    tag, the others taken whole by their layout) against one piece without layouts."""
    path = tmp_path / "docs.sgml"
    path.write_text(text, encoding="utf-8")
    with monkeypatch.context() as m:
        m.setattr(documents, "_MAX_LAYOUTS", 0)
        slow = _read(path)
    with monkeypatch.context() as m:
        m.setattr(textio, "CHUNK_BYTES", chunk)
        assert _read(path) == slow


def test_documents_of_a_known_layout_go_through_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = "<DOC>\n<DOCNO>D{}</DOCNO>\n<HEADLINE>\nH &amp; co\n</HEADLINE>\n<TEXT>\n<P>\nt\n</P>\n</TEXT>\n</DOC>\n"
    path = tmp_path / "docs.sgml"
    path.write_text("".join(doc.format(k) for k in range(5)), encoding="utf-8")
    taken = []
    by_layout = documents._parse_by_layout
    monkeypatch.setattr(
        documents, "_parse_by_layout", lambda *a: taken.append(a[1]) or by_layout(*a)
    )
    docs = list(documents.iter_documents(path, "trec"))
    assert [(d.docno, d.title, d.text, d.line) for d in docs] == [
        (f"D{k}", "H & co", "t", 1 + 11 * k) for k in range(5)
    ]
    assert taken == [12, 23, 34, 45]  # the first one, element by element, gave the layout
