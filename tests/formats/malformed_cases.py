"""The malformed-input corpus (tests/data/malformed/) and the error each file must give.

Each case is ``(relative_path, kind, expected_substring)``: reading the file (relative to
:data:`MALFORMED`) as ``kind`` ("topics", "docs", "run" or "qrels"; the format detected from
the content) must raise ``judgeapp.formats.FormatError`` whose text starts with the file's
path and contains ``expected_substring`` (file name, line and problem). Importers can reuse
the list to check that a failed import leaves a project exactly as it was; with the
repository root on sys.path (``python -m pytest`` from there):

    from tests.formats.malformed_cases import CASES, MALFORMED

(tests here import it as ``malformed_cases``: pytest puts this folder on sys.path).

The files are made by tests/data/malformed/make_corpus.py.
"""

from __future__ import annotations

from pathlib import Path

MALFORMED = Path(__file__).resolve().parent.parent / "data" / "malformed"

CASES: list[tuple[str, str, str]] = [
    # runs
    (
        "run_five_columns.txt",
        "run",
        "run_five_columns.txt:3: expected 6 columns (qid iter docno rank score tag), found 5",
    ),
    (
        "run_two_columns.txt",
        "run",
        "run_two_columns.txt:1: expected 6 columns (qid iter docno rank score tag), found 2",
    ),
    ("run_bad_score.txt", "run", "run_bad_score.txt:2: score 'abc' is not a number"),
    ("run_nan_score.txt", "run", "run_nan_score.txt:3: score 'nan' is not a number"),
    (
        "run_underscore_score.txt",
        "run",
        "run_underscore_score.txt:1: score '1_250' is not a number",
    ),
    (
        "run_duplicate.txt",
        "run",
        "run_duplicate.txt:5: duplicate docno LA010189-0001 for topic 401 at lines 2 and 5",
    ),
    ("run_empty.txt", "run", "run_empty.txt: no run lines found"),
    ("run_only_comments.txt", "run", "run_only_comments.txt: no run lines found"),
    ("run_truncated.gz", "run", "truncated gzip file: the compressed data ends before its end"),
    ("run_corrupt.gz", "run", "corrupt gzip data"),
    ("run_binary.bin", "run", "run_binary.bin:1: not UTF-8 at byte 0 (line 1)"),
    ("run_latin1.txt", "run", "run_latin1.txt:3: not UTF-8 at byte 79 (line 3)"),
    ("run_nul.txt", "run", "run_nul.txt:2: NUL byte at byte 45 (line 2)"),
    ("run_utf16.txt", "run", "run_utf16.txt:1: not UTF-8 at byte 0 (line 1): the file is UTF-16"),
    # qrels
    (
        "qrels_three_columns.txt",
        "qrels",
        "qrels_three_columns.txt:2: expected 4 columns (qid iter docno grade), found 3",
    ),
    (
        "qrels_five_columns.txt",
        "qrels",
        "qrels_five_columns.txt:3: expected 4 columns (qid iter docno grade), found 5",
    ),
    ("qrels_bad_grade.txt", "qrels", "qrels_bad_grade.txt:3: grade 'x' is not an integer"),
    ("qrels_float_grade.txt", "qrels", "qrels_float_grade.txt:3: grade '1.5' is not an integer"),
    (
        "qrels_duplicate.txt",
        "qrels",
        "qrels_duplicate.txt:5: duplicate docno FT911-1796 for topic 401 at lines 1 and 5",
    ),
    ("qrels_empty.txt", "qrels", "qrels_empty.txt: no qrels lines found"),
    ("qrels_only_comments.txt", "qrels", "qrels_only_comments.txt: no qrels lines found"),
    ("qrels_latin1.txt", "qrels", "qrels_latin1.txt:5: not UTF-8 at byte 84 (line 5)"),
    ("qrels_truncated.gz", "qrels", "truncated gzip file"),
    (
        "cranqrel_bad_code.txt",
        "qrels",
        "cranqrel_bad_code.txt:2: relevance code '7' is not a Cleverdon code",
    ),
    # topics
    (
        "topics_unterminated_top.txt",
        "topics",
        "topics_unterminated_top.txt:11: <top> opened at line 11 is never closed",
    ),
    (
        "topics_nested_top.txt",
        "topics",
        "topics_nested_top.txt:10: <top> opened at line 1 is not closed before the next <top>",
    ),
    ("topics_no_num.txt", "topics", "topics_no_num.txt:11: topic has no <num>"),
    ("topics_duplicate.txt", "topics", "topics_duplicate.txt:12: duplicate topic 301 at lines 1"),
    (
        "topics_text_outside.txt",
        "topics",
        "topics_text_outside.txt:11: text outside <top> ... </top>: 'stray words between topics'",
    ),
    ("topics_bad.xml", "topics", "topics_bad.xml:4: XML error: mismatched tag"),
    ("topics_no_tab.tsv", "topics", "topics_no_tab.tsv:3: expected qid<TAB>text, found no tab"),
    ("topics_bad_json.jsonl", "topics", "topics_bad_json.jsonl:2: not valid JSON"),
    ("topics_no_id.jsonl", "topics", "topics_no_id.jsonl:2: no topic id"),
    (
        "topics_registry.json",
        "topics",
        "topics_registry.json:1: this is an Anserini topic registry",
    ),
    ("topics_empty.txt", "topics", "topics_empty.txt: no topics found"),
    ("topics_prose.txt", "topics", "topics_prose.txt:1: cannot tell the format"),
    ("topics_smart_text_first.qry", "topics", "topics_smart_text_first.qry:1: cannot tell the"),
    ("topics_latin1.txt", "topics", "topics_latin1.txt:3: not UTF-8 at byte 36 (line 3)"),
    # documents
    (
        "docs_unterminated.sgml",
        "docs",
        "docs_unterminated.sgml:7: <DOC> opened at line 7 is never closed (missing </DOC>)",
    ),
    ("docs_missing_docno.sgml", "docs", "docs_missing_docno.sgml:7: document has no <DOCNO>"),
    (
        "docs_duplicate.sgml",
        "docs",
        "docs_duplicate.sgml:13: duplicate docno D-1 at lines 1 and 13",
    ),
    (
        "docs_docno_space.sgml",
        "docs",
        "docs_docno_space.sgml:1: docno 'D-7 8' contains white space",
    ),
    (
        "docs_close_without_open.sgml",
        "docs",
        "docs_close_without_open.sgml:7: </DOC> without an open <DOC>",
    ),
    ("docs_bad.jsonl", "docs", "docs_bad.jsonl:2: not valid JSON"),
    ("docs_no_id.jsonl", "docs", "docs_no_id.jsonl:2: no document id"),
    (
        "docs_not_object.jsonl",
        "docs",
        "docs_not_object.jsonl:2: expected a JSON object, found list",
    ),
    (
        "docs_columns.tsv",
        "docs",
        "docs_columns.tsv:2: expected 2 tab-separated columns (as on the first line), found 3",
    ),
    (
        "docs_smart_no_marker.all",
        "docs",
        "docs_smart_no_marker.all:7: text after .I without a field marker",
    ),
    ("docs_latin1.sgml", "docs", "docs_latin1.sgml:2: not UTF-8 at byte 16 (line 2)"),
    ("docs_empty.jsonl", "docs", "docs_empty.jsonl: no documents found"),
    ("docs_nul.tsv", "docs", "docs_nul.tsv:2: NUL byte at byte 23 (line 2)"),
]
