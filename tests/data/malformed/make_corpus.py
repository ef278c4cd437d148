"""Writes the malformed-input corpus beside this script (run once; the files are committed).

    python tests/data/malformed/make_corpus.py

Every file is made here from text written for the purpose, so that the binary ones (gzip
cut short, Latin-1, UTF-16, NUL bytes) can be rebuilt and checked. The expected error of
each file is in tests/formats/malformed_cases.py.
"""

from __future__ import annotations

import gzip
from pathlib import Path

HERE = Path(__file__).resolve().parent

RUN = (
    "401 Q0 FT911-1796 1 12.5 tagA\n"
    "401 Q0 LA010189-0001 2 11.0 tagA\n"
    "401 Q0 FBIS3-1 3 9.75 tagA\n"
    "402 Q0 FT911-1796 1 8.0 tagA\n"
)
QRELS = "401 0 FT911-1796 1\n401 0 LA010189-0001 0\n402 0 FBIS3-1 2\n402 0 FT911-1796 0\n"
TOP = (
    "<top>\n<num> Number: 301\n<title> Garden tools\n\n<desc> Description:\n"
    "Find reports on garden tools.\n\n<narr> Narrative:\nAny tool is relevant.\n</top>\n"
)


def text(name: str, content: str) -> None:
    (HERE / name).write_text(content, encoding="utf-8", newline="")


def raw(name: str, content: bytes) -> None:
    (HERE / name).write_bytes(content)


def main() -> None:
    # runs
    text(
        "run_five_columns.txt",
        RUN.replace("401 Q0 FBIS3-1 3 9.75 tagA", "401 Q0 FBIS3-1 3 9.75"),
    )
    text("run_bad_score.txt", RUN.replace("11.0", "abc"))
    text("run_nan_score.txt", RUN.replace("9.75", "nan"))
    text("run_underscore_score.txt", RUN.replace("12.5", "1_250"))
    text("run_duplicate.txt", RUN + "401 Q0 LA010189-0001 4 3.0 tagA\n")
    text("run_empty.txt", "")
    text("run_only_comments.txt", "# a run with nothing in it\n\n# the end\n")
    text("run_two_columns.txt", "401 FT911-1796\n402 LA010189-0001\n")
    whole = gzip.compress(RUN.encode() * 50, mtime=0)
    raw("run_truncated.gz", whole[: len(whole) // 2])
    broken = bytearray(whole)
    broken[len(broken) // 2] ^= 0xFF
    raw("run_corrupt.gz", bytes(broken))
    raw(
        "run_binary.bin", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00" + bytes(range(256))
    )
    raw("run_latin1.txt", RUN.replace("FBIS3-1", "FBIS3-caf\u00e9").encode("latin-1"))
    raw("run_nul.txt", RUN.replace("LA010189-0001", "LA010189\x00-0001").encode())
    raw("run_utf16.txt", RUN.encode("utf-16"))
    # qrels
    text("qrels_three_columns.txt", QRELS.replace("401 0 LA010189-0001 0", "401 LA010189-0001 0"))
    text("qrels_five_columns.txt", QRELS.replace("402 0 FBIS3-1 2", "402 0 FBIS3-1 2 extra"))
    text("qrels_bad_grade.txt", QRELS.replace("FBIS3-1 2", "FBIS3-1 x"))
    text("qrels_float_grade.txt", QRELS.replace("FBIS3-1 2", "FBIS3-1 1.5"))
    text("qrels_duplicate.txt", QRELS + "401 0 FT911-1796 2\n")
    text("qrels_empty.txt", "")
    text("qrels_only_comments.txt", "# judgments to come\n")
    raw("qrels_latin1.txt", (QRELS + "403 0 ni\u00f1o-7 1\n").encode("latin-1"))
    whole = gzip.compress(QRELS.encode() * 40, mtime=0)
    raw("qrels_truncated.gz", whole[: len(whole) - 12])
    text("cranqrel_bad_code.txt", "1 184 2\n1 29 7\n2 12 3\n")
    # topics
    text("topics_unterminated_top.txt", TOP + TOP.replace("301", "302").replace("</top>\n", ""))
    text("topics_nested_top.txt", TOP.replace("</top>\n", "") + TOP.replace("301", "302"))
    text("topics_no_num.txt", TOP + TOP.replace("<num> Number: 301\n", ""))
    text("topics_duplicate.txt", TOP + "\n" + TOP)
    text("topics_text_outside.txt", TOP + "stray words between topics\n" + TOP.replace("301", "3"))
    text(
        "topics_bad.xml",
        '<topics>\n  <topic number="1">\n    <query>garden tools</query>\n'
        "    <question>which tools?</narrative>\n  </topic>\n</topics>\n",
    )
    text("topics_no_tab.tsv", "1\tgarden tools\n2\tseed packets\n3 lighthouse keepers\n")
    text(
        "topics_bad_json.jsonl", '{"qid": "1", "title": "garden tools"}\n{"qid": "2", "title": }\n'
    )
    text("topics_no_id.jsonl", '{"qid": "1", "title": "garden tools"}\n{"title": "seed packets"}\n')
    text(
        "topics_registry.json",
        '{\n  "garden": {\n    "path": "topics.garden.txt",\n'
        '    "reader_class": "io.anserini.search.topicreader.TrecTopicReader"\n  }\n}\n',
    )
    text("topics_empty.txt", "\n\n")
    text("topics_prose.txt", "These are not topics, just a note about them.\n")
    text("topics_smart_text_first.qry", "what about gardens\n.I 1\n.W\ngarden tools\n")
    raw("topics_latin1.txt", TOP.replace("Garden tools", "Jard\u00edn tools").encode("latin-1"))
    # documents
    doc = "<DOC>\n<DOCNO> D-{n} </DOCNO>\n<TEXT>\nText of document {n}.\n</TEXT>\n</DOC>\n"
    text("docs_unterminated.sgml", doc.format(n=1) + doc.format(n=2).replace("</DOC>\n", ""))
    text(
        "docs_missing_docno.sgml", doc.format(n=1) + "<DOC>\n<TEXT>\nNo number.\n</TEXT>\n</DOC>\n"
    )
    text("docs_duplicate.sgml", doc.format(n=1) + doc.format(n=2) + doc.format(n=1))
    text("docs_docno_space.sgml", doc.format(n="7 8"))
    text("docs_close_without_open.sgml", doc.format(n=1) + "</DOC>\n")
    text("docs_bad.jsonl", '{"id": "d1", "contents": "one"}\n{"id": "d2", "contents": "two"\n')
    text("docs_no_id.jsonl", '{"id": "d1", "contents": "one"}\n{"contents": "two"}\n')
    text("docs_not_object.jsonl", '{"id": "d1", "contents": "one"}\n["d2", "two"]\n')
    text("docs_columns.tsv", "d1\tfirst text\nd2\ta title\tsecond text\n")
    text("docs_smart_no_marker.all", ".I 1\n.T\nA title\n.W\nSome text\n.I 2\nno marker here\n")
    raw("docs_latin1.sgml", doc.format(n="\u00e91").encode("latin-1"))
    text("docs_empty.jsonl", "")
    raw("docs_nul.tsv", b"d1\tfirst text\nd2\tsecond\x00text\n")


if __name__ == "__main__":
    main()
