"""clean_many, the batch cleaning of TREC field contents, against clean, one content at a
time: the same text for any mix of markup, entities, white space and line ends."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from judgeapp.formats.sgml import clean, clean_many

PIECES = [
    "<P>", "</P>", "<p>", "<P id=1>", "<B>", "</B>", "<", ">", "&amp;", "&lt;P&gt;", "&#10;",
    "&#32;", "&#x20;", "&hyph;", "AT&T", "&", " ", "  ", "\t", "\n", "\n\n", "\r", "\x0b",
    "\x0c", "word", "é", "日本", "\ud800", "x",
]  # fmt: skip
content = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(content, max_size=8))
def test_clean_many_is_clean_of_each(contents):
    assert clean_many(contents) == [clean(c) for c in contents]


def test_clean_many_folds_trec_paragraphs():
    text = "\n<P>\nFirst line \nsecond\n</P>\n<P>\n\n\nThird &amp; last\n</P>\n"
    assert clean_many([text, "  <HL>x</HL> ", ""]) == [
        "First line\nsecond\n\nThird & last",
        "x",
        "",
    ]


def test_clean_many_keeps_a_nul_reference_inside_its_content():
    contents = ["a&#0;b", "<P>c&#x00;</P>", "d"]
    assert clean_many(contents) == [clean(c) for c in contents] == ["a\x00b", "c\x00", "d"]
