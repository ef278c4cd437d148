"""read_topics on every real topic file, counted against the files by regular expressions
and line counts, plus the JSON, TSV and SMART rules."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from judgeapp.formats import FormatError, read_topics

SGML_TOPICS = [
    "topics/topics.adhoc.51-100.txt",
    "topics/topics.adhoc.101-150.txt",
    "topics/topics.adhoc.151-200.txt",
    "topics/topics.adhoc.301-350.txt",
    "topics/topics.adhoc.351-400.txt",
    "topics/topics.adhoc.401-450.txt",
    "topics/topics.adhoc.451-550.txt",
    "topics/topics.core17.txt",
    "topics/topics.core18.txt",
    "topics/topics.robust04.txt",
    "topics/topics.robust05.txt",
    "topics/topics.terabyte04.701-750.txt",
    "topics/topics.terabyte05.751-800.txt",
    "topics/topics.terabyte06.801-850.txt",
    "robust03/topics.robust04.301-450.601-700.txt",
]
XML_TOPICS = [
    f"topics/topics.web.{r}.txt" for r in ("51-100", "101-150", "151-200", "201-250", "251-300")
]
COVID_TOPICS = [f"topics/topics.covid-round{n}.xml" for n in range(1, 6)]
TSV_TOPICS = [
    "topics/topics.dl19-doc.txt",
    "topics/topics.dl19-passage.txt",
    "topics/topics.dl20.txt",
]


@pytest.mark.parametrize("name", SGML_TOPICS)
def test_sgml_topics(shared_data: Path, name: str) -> None:
    text = (shared_data / name).read_text()
    numbers = re.findall(r"<num>\s*Number:\s*(\S+)", text)
    assert len(numbers) == text.count("<top>") == text.count("</top>")
    topics = read_topics(shared_data / name)
    assert [t.qid for t in topics] == numbers
    starts = [i + 1 for i, line in enumerate(text.splitlines()) if line.strip() == "<top>"]
    assert [t.line for t in topics] == starts
    for topic in topics:
        assert topic.title and "Topic:" not in topic.title and "\n" not in topic.title
        assert topic.description and not topic.description.startswith("Description")
        assert topic.narrative and not topic.narrative.startswith("Narrative")


def test_tipster_topics_keep_leading_zeros_and_extra_tags(shared_data: Path) -> None:
    topics = read_topics(shared_data / "topics" / "topics.adhoc.51-100.txt")
    first = topics[0]
    assert first.qid == "051"
    assert first.title == "Airbus Subsidies"
    assert first.fields["dom"] == "International Economics"
    assert first.fields["head"] == "Tipster Topic Description"
    assert first.fields["smry"].startswith("Document will discuss government assistance")
    assert first.fields["con"].startswith("1. Airbus Industrie")
    assert first.description.startswith("Document will discuss government assistance")
    assert first.narrative.startswith("A relevant document will cite or discuss")
    by_qid = {t.qid: t for t in read_topics(shared_data / "topics" / "topics.adhoc.101-150.txt")}
    assert by_qid["101"].fields["nat"] == "U.S."
    assert by_qid["101"].fields["con"].startswith("1. Strategic Defense Initiative")


def test_core18_closing_tags_and_unlabelled_narrative(shared_data: Path) -> None:
    first = read_topics(shared_data / "topics" / "topics.core18.txt")[0]
    assert (first.qid, first.title) == ("321", "Women in Parliaments")
    assert first.narrative.startswith("Pertinent documents relating to this issue")
    assert first.description.startswith("Pertinent documents will reflect")


@pytest.mark.parametrize("name", XML_TOPICS)
def test_web_track_xml(shared_data: Path, name: str) -> None:
    text = (shared_data / name).read_text()
    blocks = re.findall(r'<topic number="(\d+)" type="(\w+)">(.*?)</topic>', text, re.S)
    topics = read_topics(shared_data / name)
    assert len(topics) == len(blocks) == 50
    for topic, (number, kind, body) in zip(topics, blocks, strict=True):
        assert topic.qid == number
        assert topic.fields["type"] == kind
        query = re.search(r"<query>(.*?)</query>", body, re.S).group(1)
        assert topic.title == " ".join(query.split())
        subtopics = re.findall(
            r'<subtopic number="(\d+)" type="(\w+)">(.*?)</subtopic>', body, re.S
        )
        assert [(s["number"], s["type"], s["text"]) for s in topic.fields.get("subtopics", [])] == [
            (n, t, " ".join(s.split())) for n, t, s in subtopics
        ]


@pytest.mark.parametrize("name", COVID_TOPICS)
def test_covid_xml(shared_data: Path, name: str) -> None:
    text = (shared_data / name).read_text()
    blocks = re.findall(
        r'<topic number="(\d+)">\s*<query>(.*?)</query>\s*<question>(.*?)</question>\s*'
        r"<narrative>(.*?)</narrative>",
        text,
        re.S,
    )
    topics = read_topics(shared_data / name)
    assert len(topics) == len(blocks) == text.count("<topic ")
    for topic, block in zip(topics, blocks, strict=True):
        # values on one line, white space folded
        assert (topic.qid, topic.title, topic.description, topic.narrative) == tuple(
            " ".join(part.split()) for part in block
        )


@pytest.mark.parametrize("name", TSV_TOPICS)
def test_tsv_topics(shared_data: Path, name: str) -> None:
    lines = (shared_data / name).read_text().splitlines()
    topics = read_topics(shared_data / name)
    assert [(t.qid, t.title) for t in topics] == [
        (q, " ".join(text.split())) for q, text in (line.split("\t", 1) for line in lines)
    ]


def test_cacm_topics_in_doc_form(shared_data: Path) -> None:
    path = shared_data / "topics" / "topics.cacm.txt"
    text = path.read_text()
    numbers = re.findall(r"<DOCNO>\s*(\S+)\s*</DOCNO>", text)
    topics = read_topics(path)
    assert [t.qid for t in topics] == numbers and len(numbers) == 64
    assert topics[0].title.startswith("What articles exist which deal with TSS")


def test_anserini_registry_is_refused_with_a_reason(shared_data: Path) -> None:
    """topics.json maps names of topic sets to a path and a reader class: neither JSON
    Lines nor a JSON array of topics."""
    path = shared_data / "topics" / "topics.json"
    registry = json.loads(path.read_text())
    assert all(set(v) == {"path", "reader_class"} for v in registry.values())
    with pytest.raises(FormatError, match=r"topics\.json:1: this is an Anserini topic registry"):
        read_topics(path)


# ---- SMART query files -----------------------------------------------------------------


def smart_ids(path: Path) -> list[str]:
    return [line.split()[1] for line in path.read_text().splitlines() if line.startswith(".I ")]


def test_cranfield_queries_are_numbered_by_position(shared_data: Path) -> None:
    path = shared_data / "collections" / "cranfield" / "cran.qry"
    written = smart_ids(path)
    topics = read_topics(path)
    assert len(topics) == len(written) == 225
    assert [t.qid for t in topics] == [str(n) for n in range(1, 226)]
    assert [t.fields["smart_id"] for t in topics] == written
    assert written[:4] == ["001", "002", "004", "008"]  # the gaps the position rule covers
    assert topics[2].title.startswith("what problems of heat conduction in composite slabs")
    assert all("\r" not in t.title for t in topics)


@pytest.mark.parametrize(
    ("folder", "name", "count"), [("cisi", "CISI.QRY", 112), ("cacm", "query.text", 64)]
)
def test_cisi_and_cacm_positions_equal_their_ids(
    shared_data: Path, folder: str, name: str, count: int
) -> None:
    path = shared_data / "collections" / folder / name
    written = smart_ids(path)
    topics = read_topics(path)
    assert len(topics) == count
    for position, topic in enumerate(topics, 1):
        assert topic.qid == str(position) == str(int(topic.fields["smart_id"]))
    if folder == "cacm":
        # query.text ends with an empty ".I 0": an end marker, not a 65th query
        assert written[-1] == "0" and len(written) == count + 1
    else:
        assert len(written) == count


def test_smart_query_fields(shared_data: Path) -> None:
    cacm = read_topics(shared_data / "collections" / "cacm" / "query.text")
    assert cacm[1].fields["authors"] == "Prieve, B.\nPooch, U."
    assert cacm[1].fields["note"].startswith("2. Richard Alexander")
    cisi = read_topics(shared_data / "collections" / "cisi" / "CISI.QRY")
    assert cisi[59].fields["source_title"].startswith("The Combined Use of Bibliographic")
    assert cisi[59].title.startswith("A linkage similarity measure")


# ---- JSON and TSV by hand ----------------------------------------------------------------


def test_json_lines_and_json_array_read_the_same(tmp_path: Path) -> None:
    records = [
        {"qid": "01", "title": "garden  tools", "description": "d", "narrative": "n", "lang": "en"},
        {"query_id": 2, "query": "seed packets"},
        {"_id": "3", "text": "lighthouse", "question": "which one?", "narr": "any"},
    ]
    lines = tmp_path / "t.jsonl"
    lines.write_text("\n".join(json.dumps(r) for r in records) + "\n\n")
    array = tmp_path / "t.json"
    array.write_text(json.dumps(records, indent=2))
    for path in (lines, array):
        topics = read_topics(path)
        assert [(t.qid, t.title, t.description, t.narrative) for t in topics] == [
            ("01", "garden tools", "d", "n"),
            ("2", "seed packets", "", ""),
            ("3", "lighthouse", "which one?", "any"),
        ]
        assert topics[0].fields == {"lang": "en"}
    assert [t.line for t in read_topics(lines)] == [1, 2, 3]
    assert [t.line for t in read_topics(array)] == [2, 9, 13]


def test_json_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('[\n  {"qid": "1", "title": "a"},\n  {"qid": "2", "title": 5}\n]\n')
    with pytest.raises(FormatError, match=r"t\.json:3: 'title' must be text"):
        read_topics(path)


def test_duplicate_qid_in_tsv(tmp_path: Path) -> None:
    path = tmp_path / "t.tsv"
    path.write_text("1\ta\n2\tb\n1\tc\n")
    with pytest.raises(FormatError, match=r"t\.tsv:3: duplicate topic 1 at lines 1 and 3"):
        read_topics(path)


def test_format_override_and_unknown_format(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_text("1\tgarden tools\n")
    assert read_topics(path, "tsv")[0].title == "garden tools"
    with pytest.raises(FormatError, match="unknown topics format 'yaml'"):
        read_topics(path, "yaml")
