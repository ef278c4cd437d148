"""Writes the small hostile inputs of the corpus into files/ (run once; they are committed).

    python tests/data/hostile/make_files.py

Each file is made here from text written for the purpose, so that the odd bytes (BOMs,
Latin-1, NULs, CR-only line ends, UTF-16) can be rebuilt and checked. Inputs too large to
commit (long lines, deep nesting, compression bombs, thousands of blank lines) are made at
test time from recipes in tests/hostile/cases.py. What each case runs and expects is in
cases.toml beside this script.
"""

from __future__ import annotations

import bz2
import gzip
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
FILES = HERE / "files"


def text(name: str, content: str) -> None:
    (FILES / name).write_text(content, encoding="utf-8", newline="")


def raw(name: str, content: bytes) -> None:
    (FILES / name).write_bytes(content)


def qrels_with(grade: str) -> str:
    return f"401 0 D1 2\n401 0 D4 {grade}\n402 0 D2 1\n"


def main() -> None:
    FILES.mkdir(exist_ok=True)
    # -- grades and numbers out of any sane range ------------------------------------------
    text("qrels_grade_int64_max.txt", qrels_with(str(2**63 - 1)))
    text("qrels_grade_2_62.txt", qrels_with(str(2**62)))
    text("qrels_grade_2_64.txt", qrels_with(str(2**64)))
    text("qrels_grade_int64_min.txt", qrels_with(str(-(2**63))))
    text("qrels_grade_1001.txt", qrels_with("1001"))
    text("qrels_grade_minus_1001.txt", qrels_with("-1001"))
    text("qrels_grade_1000.txt", qrels_with("1000"))
    text("qrels_grade_arabic_digits.txt", qrels_with("\u0662"))
    text("qrels_grade_plus.txt", qrels_with("+1"))
    text(
        "judgments_grade_huge.jsonl",
        '{"topic": "401", "docno": "D1", "grade": 9223372036854775807}\n',
    )
    text("judgments_grade_1e300.jsonl", '{"topic": "401", "docno": "D1", "grade": 1e300}\n')
    text("qrels_ranx_grade_huge.json", '{"401": {"D1": 9223372036854775807}}\n')
    text("qrels_ranx_grade_text.json", '{"401": {"D1": "very"}}\n')
    text("judgments_grade_bigint.csv", "topic,docno,grade\n401,D1,99999999999999999999999\n")
    text("judgments_qrels_grade_huge.txt", "401 0 D1 4611686018427387904 0.9\n")
    text(
        "judgments_score_huge.jsonl",
        '{"topic": "401", "docno": "D1", "grade": 1, "score": 1e999}\n',
    )
    text("run_score_inf.txt", "401 Q0 D1 1 inf r\n401 Q0 D2 2 -inf r\n402 Q0 D2 1 1e308 r\n")
    text("run_score_overflow.txt", "401 Q0 D1 1 1e99999 r\n401 Q0 D2 2 1 r\n")
    # -- judge's standard input: decoded, split and checked as the files are --------------
    text("judge_cr_only.txt", "401 D1 1\r401 D4 0\r")
    text("judge_mixed_line_ends.txt", "401 D1 1\r\n401 D4 0\r402 D2 2\n403 D3 1")
    raw("judge_bom.txt", b"\xef\xbb\xbf401 D1 1\n")
    raw("judge_nul_in_docno.txt", b"401 D1 1\n401 D\x001 2\n")
    raw("judge_latin1.txt", b"401 D1 1 caf\xe9\n")
    text("judge_arabic_digits.txt", "401 D1 \u0661\n")
    text("judge_fullwidth_digits.txt", "401 D1 \uff11\n")
    text("judge_superscript_grade.txt", "401 D1 \u00b2\n")
    text("judge_underscore_grade.txt", "401 D1 0_1\n")
    text("judge_huge_grade.txt", "401 D1 99999999999999999999\n")
    text("judge_nbsp_docno.txt", "401 D\u00a01 1\n")
    text("judge_vt_ff_separators.txt", "401\x0bD1\x0c1\n")
    text("judge_note_with_cr.txt", "401 D1 1 first note\rmore\n")
    raw("judge_utf16.txt", "401 D1 1\n".encode("utf-16"))
    raw("judge_gzip.gz", gzip.compress(b"401 D1 1\n", mtime=0))
    raw("judge_random.bin", random.Random(13).randbytes(4096))
    text("judge_unknown_topic.txt", "401 D1 1\n999 D1 1\n")
    text("judge_comment_and_blank.txt", "# header\n\n   \n401 D1 2 fine\n")
    # -- whole-file formats that could recurse or expand -----------------------------------
    text(
        "topics_billion_laughs.xml",
        '<?xml version="1.0"?>\n<!DOCTYPE t [\n<!ENTITY a "aaaaaaaaaa">\n'
        + "".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">\n' for i in range(9))
        + ']>\n<topics><topic number="1"><query>&j;</query></topic></topics>\n',
    )
    text(
        "topics_external_entity.xml",
        '<?xml version="1.0"?>\n<!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
        '<topics><topic number="1"><query>&x;</query></topic></topics>\n',
    )
    text("topics_html_title.tsv", '401\t<img src="file:///etc/passwd"><b>bold</b>\n')
    # -- ids the readers accept must be writable again -------------------------------------
    text("qrels_nbsp_docno.txt", "401 0 D\u00a01 1\n401 0 D1 2\n")
    text("qrels_odd_space_docno.txt", "401 0 D\u20031 1\n401 0 D\x1c2 1\n")
    # -- compressed oddities ---------------------------------------------------------------
    raw("run_gzip_then_garbage.gz", gzip.compress(b"401 Q0 D1 1 1 r\n", mtime=0) + b"junk")
    raw("run_bzip2_truncated.bz2", bz2.compress(b"401 Q0 D1 1 1 r\n" * 1000)[:60])
    # -- project files that are not projects -----------------------------------------------
    text("not_a_project.txt", "401 Q0 D1 1 1 r\n")
    raw("not_a_project.gz", gzip.compress(b"SQLite format 3\x00" + b"\x00" * 100, mtime=0))
    # -- issue 27 --------------------------------------------------------------------------
    text("qrels_decimal_grades.txt", "401 0 D1 1.0\n401 0 D4 0.0\n402 0 D2 1.0\n")
    text(
        "docs_lone_surrogate.jsonl",
        '{"docno": "D7", "text": "fine"}\n{"docno": "D8", "text": "cut \\ud800 here"}\n',
    )
    text(
        "judgments_lone_surrogate.jsonl",
        '{"topic": "401", "docno": "D2", "grade": 1, "note": "half a pair \\udc00"}\n',
    )
    text("topics_changed.tsv", "401\tforeign minorities, somewhere else entirely\n")
    text("run_infinite_score.txt", "401 Q0 D1 1 inf r\n401 Q0 D2 2 1 r\n")


if __name__ == "__main__":
    main()
