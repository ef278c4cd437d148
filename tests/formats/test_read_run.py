"""read_run: counts on the real runs, trec_eval order (checked against trec_eval's own
output), the tolerated oddities, and chunk boundaries."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgeapp.formats import FormatError, read_run, textio

TIE_FREE = "{q} Q0 {d} {r} {s} tag\n"


def write(tmp_path: Path, text: str, name: str = "run.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def plain_entries(path: Path) -> dict[str, list[tuple[float, str, int]]]:
    """The oracle: split every line by hand, keep (score, docno, line) per topic."""
    opener = gzip.open if path.read_bytes()[:2] == b"\x1f\x8b" else open
    out: dict[str, list[tuple[float, str, int]]] = {}
    with opener(path, "rt", encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, 1):
            p = line.split()
            if p and not p[0].startswith("#"):
                out.setdefault(p[0], []).append((float(p[4]), p[2], line_no))
    return out


def assert_trec_order(path: Path) -> None:
    run = read_run(path)
    expected = plain_entries(path)
    assert list(run.topics) == sorted(expected)
    assert run.n_lines == sum(map(len, expected.values()))
    for qid, entries in expected.items():
        # Python's tuple order with reverse=True: score descending, then docno descending
        entries.sort(reverse=True)
        ranked = run.topics[qid]
        assert ranked.docnos == [d for _, d, _ in entries]
        assert ranked.scores.dtype == np.float64
        assert ranked.scores.tolist() == [s for s, _, _ in entries]
        assert ranked.lines.tolist() == [n for _, _, n in entries]


# ---- the real runs -------------------------------------------------------------------


@pytest.fixture(scope="module")
def robust_runs(shared_data: Path) -> list[Path]:
    runs = sorted((shared_data / "robust03" / "runs").glob("input.*.gz"))
    assert len(runs) == 17
    return runs


@pytest.mark.slow
def test_robust03_runs_counts_and_order(robust_runs: list[Path]) -> None:
    total = 0
    for path in robust_runs:
        with gzip.open(path, "rt") as fh:
            lines = fh.read().splitlines()
        run = read_run(path)
        assert run.n_lines == len(lines) == run.n_entries
        assert set(run.topics) == {line.split()[0] for line in lines}
        assert (
            run.tag == lines[0].split()[5] == path.name.removeprefix("input.").removesuffix(".gz")
        )
        total += run.n_lines
        assert_trec_order(path)
    assert total == 1_510_973


@pytest.mark.parametrize(
    "name", ["results.test", "results.trunc", "results.comment.test", "results-302.test"]
)
def test_trec_eval_test_runs(shared_data: Path, name: str) -> None:
    assert_trec_order(shared_data / "trec_eval-10.0" / "test" / name)


def test_results_trunc_extra_columns_and_missing_topic(shared_data: Path) -> None:
    run = read_run(shared_data / "trec_eval-10.0" / "test" / "results.trunc")
    assert list(run.topics) == ["301", "303"]  # trec_eval's -c case: topic 302 removed
    assert run.n_lines == 584


def _trec_eval_values(path: Path, measures: set[str]) -> dict[tuple[str, str], float]:
    out = {}
    with gzip.open(path, "rt") as fh:
        for line in fh:
            name, qid, value = line.split()
            if name in measures and qid != "all":
                out[name, qid] = float(value)
    return out


def test_tie_order_reproduces_trec_eval_on_rutcor03100(shared_data: Path) -> None:
    """rutcor03100 has about 100k tied entries: the ranks-based measures trec_eval printed
    per topic only come out right with ties broken by docno descending."""
    qrels: dict[str, dict[str, int]] = {}
    for line in (shared_data / "robust03" / "robust03_qrels.txt").read_text().splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    run = read_run(shared_data / "robust03" / "runs" / "input.rutcor03100.gz")
    wanted = {"P_5", "P_10", "P_30", "recip_rank", "map"}
    reference = _trec_eval_values(
        shared_data
        / "robust03"
        / "trec_eval-outputs"
        / "robust03_trec_eval_v10"
        / "rutcor03100.all_trec.q.txt.gz",
        wanted,
    )
    checked = 0
    for qid, ranked in run.topics.items():
        judged = qrels.get(qid)
        if judged is None:
            continue
        rel = [judged.get(d, 0) >= 1 for d in ranked.docnos]
        n_rel = sum(g >= 1 for g in judged.values())
        hits, ap, rr = 0, 0.0, 0.0
        for rank, r in enumerate(rel, 1):
            if r:
                hits += 1
                ap += hits / rank
                rr = rr or 1 / rank
        mine = {
            "P_5": sum(rel[:5]) / 5,
            "P_10": sum(rel[:10]) / 10,
            "P_30": sum(rel[:30]) / 30,
            "recip_rank": rr,
            "map": ap / n_rel if n_rel else 0.0,
        }
        for name, value in mine.items():
            assert value == pytest.approx(reference[name, qid], abs=5e-5), (qid, name)
            checked += 1
    assert checked == 5 * 100


def test_relstring_of_trec_eval_suite(shared_data: Path) -> None:
    """out.test.aql lists the relevance of the top 20 per topic (-l2 qrels.rel_level)."""
    test = shared_data / "trec_eval-10.0" / "test"
    grades: dict[tuple[str, str], int] = {}
    for line in (test / "qrels.rel_level").read_text().splitlines():
        q, _, d, g = line.split()
        grades[q, d] = int(g)
    expected = {}
    for line in (test / "out.test.aql").read_text().splitlines():
        if line.startswith("relstring_20"):
            _, qid, value = line.split()
            expected[qid] = value.strip("'")
    run = read_run(test / "results.test")

    def char(qid: str, docno: str) -> str:
        if (qid, docno) not in grades:
            return "-"
        g = grades[qid, docno]
        return "." if g < 0 else str(g)

    got = {q: "".join(char(q, d) for d in t.docnos[:20]) for q, t in run.topics.items()}
    assert got == expected


# ---- hand cases ----------------------------------------------------------------------


def test_ties_are_broken_by_docno_descending_in_byte_order(tmp_path: Path) -> None:
    text = "".join(
        TIE_FREE.format(q=1, d=d, r=i, s=s)
        for i, (d, s) in enumerate(
            [("a", 5), ("Z", 5), ("\u00e9", 5), ("\u00e4", 5), ("b", 7), ("c", 3), ("B", 7)]
        )
    )
    ranked = read_run(write(tmp_path, text)).topics["1"]
    # é (U+00E9, UTF-8 c3 a9) > ä (c3 a4) > a > Z; b > B among the 7s
    assert ranked.docnos == ["b", "B", "\u00e9", "\u00e4", "a", "Z", "c"]
    assert ranked.scores.tolist() == [7, 7, 5, 5, 5, 5, 3]
    assert ranked.lines.tolist() == [5, 7, 3, 4, 1, 2, 6]


def test_scores_not_ranks_decide_and_rank_column_is_not_read(tmp_path: Path) -> None:
    text = (
        "q1 Q0 d1 x 1.5e1 t1\n"  # rank 'x': trec_eval never reads the rank, nor do we
        "q1 Q0 d2 1 -3 t2\n"
        "q1 Q0 d3 1 +20 t3\n"
        "q1 Q0 d4 2 -inf t4\n"
    )
    run = read_run(write(tmp_path, text))
    assert run.topics["q1"].docnos == ["d3", "d1", "d2", "d4"]
    assert run.topics["q1"].scores.tolist() == [20.0, 15.0, -3.0, float("-inf")]
    assert run.tag == "t1"  # the tag of the first line


def test_ids_are_opaque_strings(tmp_path: Path) -> None:
    text = "01 Q0 D 1 2 t\n1 Q0 D 1 2 t\n1.0 Q0 D 1 2 t\n"
    run = read_run(write(tmp_path, text))
    assert list(run.topics) == ["01", "1", "1.0"]


def test_comments_blank_lines_tabs_and_extra_columns(tmp_path: Path) -> None:
    text = (
        "# produced by hand\n"
        "\n"
        "7\tQ0\td#1\t1\t0.5\trunA\textra junk\n"
        "   # an indented comment\n"
        "7  Q0   d2  2   0.25   runA\n"
        "  \t \n"
        "7 Q0 d3 3 0.125 runA more\r\n"
    )
    run = read_run(write(tmp_path, text))
    ranked = run.topics["7"]
    assert ranked.docnos == ["d#1", "d2", "d3"]
    assert ranked.lines.tolist() == [3, 5, 7]
    assert run.n_lines == 3
    assert run.tag == "runA"


def test_interleaved_topics_are_gathered(tmp_path: Path) -> None:
    text = "".join(TIE_FREE.format(q=q, d=f"d{i}", r=i, s=100 - i) for i, q in enumerate("ABABBA"))
    run = read_run(write(tmp_path, text))
    assert run.topics["A"].docnos == ["d0", "d2", "d5"]
    assert run.topics["B"].docnos == ["d1", "d3", "d4"]
    assert run.topics["B"].lines.tolist() == [2, 4, 5]


def test_same_docno_in_two_topics_is_fine(tmp_path: Path) -> None:
    run = read_run(write(tmp_path, "1 Q0 d 1 1 t\n2 Q0 d 1 1 t\n"))
    assert run.n_entries == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "1 Q0 a 1 2 t\n1 Q0 b 1 2 t\n1 Q0 a 1 2 t\n",
            "duplicate docno a for topic 1 at lines 1 and 3",
        ),
        (
            "1 Q0 a 1 2 t\n2 Q0 x 1 2 t\n1 Q0 a 1 5 t\n",
            "duplicate docno a for topic 1 at lines 1 and 3",
        ),
        ("1 Q0 a 1 2 t\n1 Q0 b 1 0x10 t\n", ":2: score '0x10' is not a number"),
        ("1 Q0 a 1 2 t\n1 Q0 b 1 \u0663 t\n", ":2: score '\u0663' is not a number"),
        ("1 Q0 a 1 2\n", ":1: expected 6 columns (qid iter docno rank score tag), found 5"),
    ],
)
def test_errors(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(FormatError, match=re.escape(message)):
        read_run(write(tmp_path, text))


def test_unknown_format_name(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="unknown run format 'csv'"):
        read_run(write(tmp_path, "1 Q0 a 1 2 t\n"), "csv")


def _as_lists(run):
    return {q: (t.docnos, t.scores.tolist(), t.lines.tolist()) for q, t in run.topics.items()}


@pytest.mark.parametrize("chunk", [16, 100, 1000])
def test_chunk_boundaries_change_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    """Topics crossing chunks, comment chunks next to fast chunks, ties across chunks."""
    rows = []
    for q in ("10", "11", "9"):
        for i in range(40):
            rows.append(TIE_FREE.format(q=q, d=f"doc{(i * 7) % 40:02d}", r=i, s=(80 - i) // 3))
            if i % 13 == 0:
                rows.append("# note\n")
    path = write(tmp_path, "".join(rows))
    whole = _as_lists(read_run(path))
    monkeypatch.setattr(textio, "CHUNK_BYTES", chunk)
    assert _as_lists(read_run(path)) == whole
    assert_trec_order(path)


def test_chunked_reading_of_a_real_run(shared_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = shared_data / "robust03" / "runs" / "input.humR03dc.gz"
    whole = _as_lists(read_run(path))
    monkeypatch.setattr(textio, "CHUNK_BYTES", 4096)
    assert _as_lists(read_run(path)) == whole


def test_preference_suite_files(shared_data: Path) -> None:
    """prefs.results.test is an ordinary run; prefs.rank20 lacks its qid column, and
    trec_eval also refuses it as a run ("get_results: Malformed line 1")."""
    test = shared_data / "trec_eval-10.0" / "test"
    assert_trec_order(test / "prefs.results.test")
    assert read_run(test / "prefs.results.test").n_lines == 480
    first = (test / "prefs.rank20").read_text().splitlines()[0]
    assert len(first.split()) == 5
    with pytest.raises(FormatError, match=re.escape("prefs.rank20:1: expected 6 columns")):
        read_run(test / "prefs.rank20")


def test_only_ascii_white_space_separates_columns(tmp_path: Path) -> None:
    """trec_eval splits on C's isspace; a no-break space or \\x1c is part of a docno."""
    text = "1 Q0 doc\u00a0x 1 2 t\n1 Q0 doc\x1cy 2 1 t\n1\tQ0\x0bdoc-z 3 0 t\n"
    run = read_run(write(tmp_path, text))
    assert run.topics["1"].docnos == ["doc\u00a0x", "doc\x1cy", "doc-z"]


@given(
    entries=st.lists(
        st.tuples(
            st.sampled_from(["1", "01", "2", "10"]),
            st.text(alphabet="abcXYZ\u00e9-#", min_size=1, max_size=4),
            st.sampled_from([0.5, 1.0, 1.0, 2.0, -3.0, 1e-9]),
        ),
        min_size=1,
        max_size=80,
        unique_by=lambda e: (e[0], e[1]),
    ),
    chunk=st.sampled_from([8, 40, 200, 1 << 18]),
    comments=st.booleans(),
)
@settings(max_examples=150, deadline=None)
def test_any_run_in_any_chunking_matches_the_oracle(
    tmp_path_factory: pytest.TempPathFactory, entries, chunk: int, comments: bool
) -> None:
    """Topics interleaved or not, scores in any order, heavy ties, ties across chunks."""
    path = tmp_path_factory.mktemp("run") / "run.txt"
    rows = [f"{q} Q0 {d} {i} {s!r} tag\n" for i, (q, d, s) in enumerate(entries)]
    if comments:
        rows.insert(len(rows) // 2, "# a comment\n")
    path.write_text("".join(rows), encoding="utf-8")
    textio_chunk = textio.CHUNK_BYTES
    try:
        textio.CHUNK_BYTES = chunk
        assert_trec_order(path)
    finally:
        textio.CHUNK_BYTES = textio_chunk


@pytest.mark.parametrize("ending", ["# only a comment\n", "\n\n", "\r"])
def test_a_last_piece_without_run_lines_after_ties(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ending: str
) -> None:
    """Found by the hostile-input fuzzing: when the last piece of a file held no run line
    (comments, blank lines, a final CR) it still marked a seam, one past the last entry,
    and the tie check across seams failed with an IndexError."""
    path = tmp_path / "tied.run"
    path.write_text("401 Q0 D1 1 2 r\n401 Q0 D2 2 2 r\n" + ending, newline="")
    monkeypatch.setattr(textio, "CHUNK_BYTES", 32)
    assert read_run(path).topics["401"].docnos == ["D2", "D1"]
