"""The bulk readers against the line-precise ones: random valid run and qrels files (ties,
tabs and spaces, comments, blank lines, topics with only comments, very long ids, unicode
ids, CRLF, extra columns, numbers written every way) give identical records; numbers are
parsed exactly as float() and int(); the byte-key machinery stays exact when hashes
collide."""

from __future__ import annotations

import json
import math
import sqlite3
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from judgeapp.bytekeys import ByteKeys, HashCollision, Interner, KeyTable, Numbered
from judgeapp.formats import bulk, read_qrels, read_run, trec_order
from judgeapp.formats.errors import Irregular
from judgeapp.formats.numbers import parse_floats, parse_ints
from judgeapp.formats.qrels_lines import read_trec_qrels_lines
from judgeapp.formats.run_lines import read_run_lines
from judgeapp.records import QrelsFile, RankedTopic, RunFile

SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

# id characters: ASCII, accents, CJK, an emoji, a no-break space and an em space (part of
# an id for trec_eval, white space for Python's str.split), '#' inside an id
ID_CHARS = st.sampled_from([*"abcXYZ019-_.:/#", "é", "ß", "中", "😀", "\xa0", "\u2003"])
SHORT_ID = st.text(ID_CHARS, min_size=1, max_size=12).filter(lambda s: not s.startswith("#"))
LONG_ID = st.integers(100, 300).map(lambda n: "L" + "é" * n)  # up to 601 bytes
ID = st.one_of(SHORT_ID, SHORT_ID, SHORT_ID, LONG_ID)
SEP = st.sampled_from([" ", "\t", "  ", " \t ", "\t\t", "\v", "\f "])


def number_text(value: float, style: int) -> str:
    if style == 0:
        return repr(value)
    if style == 1:
        return f"{value:.6f}"
    if style == 2:
        return f"{value:.17g}"
    if style == 3:
        return f"{value:e}"
    if style == 4:
        return f"{value:+.3f}"
    return str(int(value)) if math.isfinite(value) and abs(value) < 1e18 else repr(value)


SCORE = st.builds(
    number_text,
    st.one_of(
        st.sampled_from([0.0, -0.0, 1.0, 0.5, 10.0, 999.0]),  # ties
        st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
        st.floats(allow_nan=False, allow_infinity=False),
    ),
    st.integers(0, 5),
)


@st.composite
def run_files(draw: st.DrawFn) -> tuple[str, bool]:
    """(text, whether every id fits the bulk reader) of a valid run file."""
    qids = draw(st.lists(ID, min_size=1, max_size=4, unique=True))
    lines: list[str] = []
    for qid in qids:
        docnos = draw(st.lists(ID, min_size=1, max_size=8, unique=True))
        for rank, docno in enumerate(docnos, 1):
            cols = [qid, draw(st.sampled_from(["Q0", "0", "iter"])), docno, str(rank)]
            cols += [draw(SCORE), draw(st.sampled_from(["tag", "run-é"]))]
            if draw(st.integers(0, 9)) == 0:
                cols.append("extra")  # columns after the tag are ignored
            line = "".join(c + draw(SEP) for c in cols[:-1]) + cols[-1]
            if draw(st.integers(0, 9)) == 0:
                line = draw(SEP) + line  # leading white space
            lines.append(line)
    # comments (one looks like a run line of a topic that has nothing else), blank lines
    extras = ["# a comment", "  #also one", "#404 Q0 d 1 1 tag", "", "   ", "\t"]
    for extra in draw(st.lists(st.sampled_from(extras), max_size=4)):
        lines.insert(draw(st.integers(0, len(lines))), extra)
    if draw(st.booleans()):
        lines = draw(st.permutations(lines))  # topics interleaved, ranks out of order
    end = draw(st.sampled_from(["\n", "\r\n"]))
    text = end.join(lines) + (end if draw(st.booleans()) else "")
    return text, True


@st.composite
def qrels_files(draw: st.DrawFn) -> str:
    qids = draw(st.lists(ID, min_size=1, max_size=4, unique=True))
    lines = []
    for qid in qids:
        docnos = draw(st.lists(ID, min_size=0, max_size=8, unique=True))
        if not docnos:
            lines.append(f"# topic {qid} has no judgment")  # a topic with only a comment
        for docno in docnos:
            grade = draw(st.sampled_from(["0", "1", "2", "-1", "+1", "007", "-0"]))
            cols = [qid, draw(st.sampled_from(["0", "Q0", "U0"])), docno, grade]
            lines.append("".join(c + draw(SEP) for c in cols[:-1]) + cols[-1])
    assume(any(not line.startswith("#") for line in lines))
    if draw(st.booleans()):
        lines = draw(st.permutations(lines))
    lines.insert(draw(st.integers(0, len(lines))), "")
    end = draw(st.sampled_from(["\n", "\r\n"]))
    return end.join(lines) + end


def same_run(a, b) -> None:
    assert (a.tag, a.n_lines, list(a.topics)) == (b.tag, b.n_lines, list(b.topics))
    for qid, x in a.topics.items():
        y = b.topics[qid]
        assert x.docnos == y.docnos
        assert x.scores.view(np.int64).tolist() == y.scores.view(np.int64).tolist()  # bits
        assert x.lines.tolist() == y.lines.tolist()


def test_a_run_made_either_way_shows_the_same_entries_in_both_views() -> None:
    """One run type (issue 31): made from ranked lists it has the columns the store
    interns, made from columns the ranked lists, and the two agree."""
    topics = {
        "401": RankedTopic(["d2", "é1"], np.array([2.5, 1.0]), np.array([3, 1])),
        "402": RankedTopic([], np.zeros(0), np.zeros(0, dtype=np.int64)),
        "403": RankedTopic(["d1"], np.array([0.5]), np.array([2])),
    }
    made = RunFile("r.txt", "t", topics, 3)
    assert (made.qids, made.bounds.tolist()) == (["401", "402", "403"], [0, 2, 2, 3])
    assert made.docnos.to_list() == ["d2", "é1", "d1"]
    assert made.hashes.tolist() == ByteKeys.from_strings(["d2", "é1", "d1"]).hashes().tolist()
    assert (made.scores.tolist(), made.lines.tolist()) == ([2.5, 1.0, 0.5], [3, 1, 2])
    assert (made.topic.tolist(), made.n_entries) == ([0, 0, 2], 3)
    columns = (made.qids, made.bounds, made.docnos, made.hashes, made.scores, made.lines)
    back = RunFile.of_columns("r.txt", "t", *columns, n_lines=3)
    same_run(back, made)
    assert back.n_entries == 3
    apart = back.without_docnos()  # what stands with a numbering made apart
    assert (len(apart.docnos), apart.scores.tolist()) == (0, [2.5, 1.0, 0.5])
    with pytest.raises(ValueError, match="numbered apart"):
        _ = apart.topics


@SETTINGS
@given(run_files(), st.sampled_from([1 << 20, 64]))
def test_random_valid_runs_read_the_same_through_both_paths(tmp_path_factory, case, block):
    text, _ = case
    path = tmp_path_factory.mktemp("run") / "run.txt"
    path.write_bytes(text.encode("utf-8"))
    precise = read_run_lines(path)
    # the bulk reader takes every such file itself (no line reader behind it)
    columns = bulk._read_run(str(path), block)
    same_run(columns, precise)
    same_run(read_run(path), precise)


@SETTINGS
@given(qrels_files(), st.sampled_from([1 << 20, 64]))
def test_random_valid_qrels_read_the_same_through_both_paths(tmp_path_factory, text, block):
    path = tmp_path_factory.mktemp("qrels") / "qrels.txt"
    path.write_bytes(text.encode("utf-8"))
    precise = read_trec_qrels_lines(str(path))
    for qrels in (bulk._read_qrels(str(path), block), read_qrels(path, "trec")):
        assert qrels.qids == precise.qids
        assert qrels.docnos == precise.docnos
        assert qrels.grades.tolist() == precise.grades.tolist()
        assert qrels.lines.tolist() == precise.lines.tolist()


def test_qrels_made_either_way_show_the_same_rows_in_both_views() -> None:
    """One qrels type (issue 31): rows as strings and the columns `evaluate` numbers the
    judged docnos from, each made from the other."""
    rows = QrelsFile(
        "q", ["402", "401", "402"], ["d1", "é", "d2"], np.array([1, -1, 0]), np.array([1, 2, 4])
    )
    assert (rows.topic_qids, rows.topic.tolist()) == (["401", "402"], [1, 0, 1])
    assert (rows.docno_keys.to_list(), rows.hashes, len(rows)) == (["d1", "é", "d2"], None, 3)
    keys = rows.docno_keys
    back = QrelsFile.of_columns("q", rows.topic_qids, rows.topic, keys, rows.grades, rows.lines)
    assert list(back) == list(rows) == [("402", "d1", 1), ("401", "é", -1), ("402", "d2", 0)]
    assert back.lines.tolist() == [1, 2, 4]


def test_ids_longer_than_the_bulk_reader_takes_go_through_the_line_reader(tmp_path: Path):
    long_id = "D" * (bulk.MAX_TOKEN + 1)
    path = tmp_path / "run.txt"
    path.write_text(f"1 Q0 {long_id} 1 2.5 t\n1 Q0 short 2 2.5 t\n")
    with pytest.raises(Irregular):
        bulk._read_run(str(path), bulk.BLOCK_BYTES)
    run = read_run(path)
    same_run(run, read_run_lines(path))
    assert run.topics["1"].docnos == ["short", long_id]  # a tie: docno descending


# ---- numbers -------------------------------------------------------------------------------


def spans(tokens: list[bytes]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The tokens in a padded buffer, as the bulk reader holds them: (buf, starts, lengths)."""
    pad = bulk._PAD
    data = b" ".join(tokens)
    buf = np.zeros(len(data) + 2 * pad, dtype=np.uint8)
    buf[pad : pad + len(data)] = np.frombuffer(data, dtype=np.uint8)
    lengths = np.array([len(t) for t in tokens], dtype=np.int64)
    starts = pad + np.concatenate(([0], np.cumsum(lengths + 1)[:-1]))
    return buf, starts.astype(np.int64), lengths


def python_float(token: bytes) -> float | None:
    """The line reader's rule: float(), no '_', ASCII only, no NaN."""
    text = token.decode()
    if "_" in text or not text.isascii():
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return None if value != value else value


DIGITS = st.text(st.sampled_from("0123456789"), min_size=0, max_size=22)
NUMBER_TOKEN = st.one_of(
    st.builds(number_text, st.floats(allow_nan=False), st.integers(0, 5)),
    st.builds(
        lambda sign, a, b, e: f"{sign}{a}{b}{e}",
        st.sampled_from(["", "-", "+"]),
        DIGITS,
        st.one_of(st.just(""), DIGITS.map(lambda d: "." + d)),
        st.one_of(st.just(""), st.integers(-30, 30).map(lambda x: f"e{x}")),
    ),
    st.sampled_from(["inf", "-Infinity", "nan", "1_0", "1e", ".", "-", "0x10", "١"]),
).filter(lambda t: 0 < len(t.encode()) <= 60)


@settings(max_examples=2000, deadline=None)
@given(st.lists(NUMBER_TOKEN, min_size=1, max_size=20))
@example(["49.04856999148854", "20.913299588409597", "9007199254740993", "-0", "0.1e-25"])
@example(["1.00000000000000011102230246251565404236316680908203125"])  # a half-way case
def test_scores_are_parsed_exactly_as_float(tokens: list[str]) -> None:
    encoded = [t.encode() for t in tokens]
    expected = [python_float(t) for t in encoded]
    buf, starts, lengths = spans(encoded)
    if any(v is None for v in expected):
        with pytest.raises(Irregular):
            parse_floats(buf, starts, lengths)
        return
    got = parse_floats(buf, starts, lengths)
    bits = [struct.pack("<d", v) for v in expected]
    assert [struct.pack("<d", v) for v in got.tolist()] == bits


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.integers(-(10**17), 10**17).map(str),
            st.sampled_from(["+3", "-0", "007", "1.0", "1e3", "x", "1_0", "99999999999999999999"]),
        ),
        min_size=1,
        max_size=10,
    )
)
def test_grades_are_integers_or_left_to_the_line_reader(tokens: list[str]) -> None:
    buf, starts, lengths = spans([t.encode() for t in tokens])
    plain = all(t.lstrip("+-").isdigit() and len(t) <= 18 for t in tokens)
    if plain:
        assert parse_ints(buf, starts, lengths).tolist() == [int(t) for t in tokens]
    else:
        with pytest.raises(Irregular):
            parse_ints(buf, starts, lengths)


# ---- byte keys, with and without hash collisions -------------------------------------------

STRINGS = st.lists(st.text(ID_CHARS, min_size=1, max_size=30), max_size=60)


def check_keys(strings: list[str], others: list[str]) -> None:
    keys = ByteKeys.from_strings(strings)
    assert keys.to_list() == strings
    first, inverse = keys.unique()
    distinct = keys.take(first).to_list()
    assert len(set(distinct)) == len(distinct) == len(set(strings))
    assert [distinct[i] for i in inverse.tolist()] == strings
    order = ByteKeys.from_strings(distinct).byte_order()
    assert [distinct[i] for i in order.tolist()] == sorted(distinct)
    table = KeyTable(ByteKeys.from_strings(distinct))
    found = table.lookup(ByteKeys.from_strings(others)).tolist()
    assert found == [distinct.index(s) if s in distinct else -1 for s in others]
    qids = np.zeros(len(strings), dtype=np.int64)
    assert trec_order.has_duplicates(qids, keys, keys.hashes()) == (
        len(set(strings)) < len(strings)
    )


@settings(max_examples=300, deadline=None)
@given(STRINGS, STRINGS)
def test_byte_keys_are_exact(strings: list[str], others: list[str]) -> None:
    check_keys(strings, others)


# any text keys hold (neither NUL nor a line end, see ByteKeys.to_list)
JSON_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\n"),
    min_size=1,
    max_size=20,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.text(ID_CHARS, min_size=1, max_size=30), JSON_TEXT), max_size=40))
@example(["LA071090-0047", "FBIS3-1"])  # the bytes road
@example(['say "x"', "a\\b", "tab\there", "\x7f\u2028é"])  # escapes, and raw UTF-8
def test_keys_travel_to_sqlite_as_the_json_array_of_their_strings(strings: list[str]) -> None:
    payload = ByteKeys.from_strings(strings).json_array()
    assert json.loads(payload) == strings
    with sqlite3.connect(":memory:") as conn:
        rows = conn.execute("SELECT value FROM json_each(?) ORDER BY key", (payload,)).fetchall()
    assert [value for (value,) in rows] == strings


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(STRINGS, STRINGS)
def test_byte_keys_stay_exact_when_every_hash_collides(monkeypatch, strings, others) -> None:
    # a hash of the length only: different strings of one length always collide
    monkeypatch.setattr(ByteKeys, "hashes", lambda self: self.lengths.astype(np.uint64) << 40)
    check_keys(strings, others)
    interner = Interner()
    # the hash above is of the length in bytes: two distinct strings of one byte length
    if len({len(s.encode()) for s in strings}) < len(set(strings)):
        with pytest.raises(HashCollision):
            interner.add(ByteKeys.from_strings(strings))


@settings(max_examples=200, deadline=None)
@given(st.lists(STRINGS, min_size=1, max_size=5))
def test_the_interner_numbers_strings_as_a_dict_does(columns: list[list[str]]) -> None:
    interner = Interner()
    numbers: dict[str, int] = {}
    for strings in columns:
        got = interner.add(ByteKeys.from_strings(strings)).tolist()
        assert got == [numbers.setdefault(s, len(numbers)) for s in strings]
    assert interner.keys().to_list() == list(numbers)


@pytest.mark.parametrize(
    "n, distinct", [(0, 1), (1, 1), (2, 1), (50, 3), (3000, 2900), (20000, 70)]
)
def test_equal_pairs_pairs_every_row_of_a_repeated_key_but_one(n, distinct):
    from judgeapp.bytekeys import equal_pairs

    rng = np.random.default_rng(n)
    values = rng.integers(0, 2**63, size=distinct, dtype=np.uint64)
    keys = values[rng.integers(0, distinct, size=n)]
    pairs = equal_pairs(keys)
    assert (keys[pairs[:, 0]] == keys[pairs[:, 1]]).all() and (pairs[:, 0] != pairs[:, 1]).all()
    # a key held by g rows gives g - 1 pairs, each with another of its rows second
    seconds = pairs[:, 1].tolist()
    assert len(set(seconds)) == len(seconds) == n - len(np.unique(keys))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(STRINGS, max_size=4), min_size=1, max_size=4))
def test_parts_numbered_in_byte_order_merge_into_one_numbering_in_byte_order(
    parts: list[list[list[str]]],
) -> None:
    # as `import run` does: each forked reader numbers its runs' docnos, in byte order
    numbered = [
        Numbered.of([(ByteKeys.from_strings(column), None) for column in part]).in_byte_order()
        for part in parts
    ]
    for part, one in zip(parts, numbered, strict=True):
        assert one.keys.to_list() == sorted({s for column in part for s in column})
    merged = Numbered.merge(numbered)
    columns = [column for part in parts for column in part]
    assert merged.byte_ordered
    assert merged.keys.to_list() == sorted({s for column in columns for s in column})
    keys = merged.keys.to_list()
    assert [[keys[i] for i in ids.tolist()] for ids in merged.ids] == columns
    # parts numbered as first met (not in byte order) merge into the very same numbering
    unordered = Numbered.merge(
        [Numbered.of([(ByteKeys.from_strings(column), None) for column in part]) for part in parts]
    )
    assert unordered.keys.to_list() == keys
    assert [ids.tolist() for ids in unordered.ids] == [ids.tolist() for ids in merged.ids]


@settings(max_examples=200, deadline=None)
@given(st.lists(STRINGS, max_size=5), st.booleans())
def test_byte_order_of_sorted_stretches_is_the_byte_order(stretches, presort) -> None:
    strings = [s for stretch in stretches for s in (sorted(stretch) if presort else stretch)]
    keys = ByteKeys.from_strings(strings)
    expected = sorted(range(len(strings)), key=lambda i: strings[i].encode())  # stable
    assert keys.byte_order().tolist() == expected
    assert keys.byte_order(in_runs=True).tolist() == expected


# ---- trec_eval order under heavy ties ------------------------------------------------------

# docnos that begin one another ("a" < "ab" < "abc"), differ only past 8 or 16 bytes, or in
# a multi-byte character: where an order on words or on padded rows could go wrong
TIE_DOCNOS = st.sampled_from(
    [
        *("a", "ab", "abc", "b", "é", "éa", "中", "😀", "LA010189-0001", "LA010189-0002"),
        *("clueweb22-en0000-00-00001", "clueweb22-en0000-00-00001-x", "X" * 17, "X" * 16),
    ]
)


def reference_order(topic: list[int], scores: list[float], docnos: list[str]) -> list[int]:
    """trec_eval's order by plain sorting: topic, score descending, docno descending in
    byte order (two stable sorts, the later key first)."""
    rows = sorted(range(len(topic)), key=lambda i: docnos[i].encode(), reverse=True)
    return sorted(rows, key=lambda i: (topic[i], -scores[i]))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.sampled_from([0.0, 1.5, 2.0, -1.0]), TIE_DOCNOS),
        max_size=60,
        unique_by=lambda row: (row[0], row[2]),
    ),
    st.booleans(),
)
def test_heavy_ties_are_put_in_trec_eval_order(rows, by_score) -> None:
    rows.sort(key=lambda row: row[0])  # the reader hands rows grouped by topic
    if by_score:  # in score order already (as most runs are written), ties in any order
        rows.sort(key=lambda row: (row[0], -row[1]))
    topic = [row[0] for row in rows]
    scores = [row[1] for row in rows]
    docnos = [row[2] for row in rows]
    order = trec_order.trec_order(
        np.array(topic, dtype=np.int64), np.array(scores), ByteKeys.from_strings(docnos)
    )
    got = list(range(len(rows))) if order is None else order.tolist()
    assert got == reference_order(topic, scores, docnos)


def test_a_run_of_long_tie_stretches_reads_as_the_line_reader_reads_it(tmp_path: Path) -> None:
    # 3-decimal scores over few values (stretches of dozens of rows, one of a whole topic),
    # long docnos sharing their first 32 bytes, written by rank with ties in no order
    rng = np.random.default_rng(28)
    lines = []
    for qid in ("301", "302", "303"):
        docs = rng.choice(100_000, 400, replace=False)
        scores = np.sort(rng.integers(0, 20, 400))[::-1] / 1000 if qid != "303" else [0.5] * 400
        for rank, (doc, score) in enumerate(zip(docs.tolist(), scores, strict=True), 1):
            docno = f"clueweb22-en0000-00-000{doc % 97:02d}-{'wiki/' * (doc % 3)}{doc}.html"
            lines.append(f"{qid} Q0 {docno} {rank} {score:.3f} tied")
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines) + "\n")
    same_run(bulk._read_run(str(path), bulk.BLOCK_BYTES), read_run_lines(path))


# ---- a run's docnos left in their blocks ---------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.text(ID_CHARS, min_size=1, max_size=30), max_size=8), max_size=5),
    st.randoms(use_true_random=False),
)
def test_scattered_keys_are_the_joined_column_seen_through_its_order(parts, rnd) -> None:
    from judgeapp.bytekeys import ScatteredKeys

    strings = [s for part in parts for s in part]
    order = list(range(len(strings)))
    rnd.shuffle(order)
    scattered = ScatteredKeys([ByteKeys.from_strings(part) for part in parts])
    assert scattered.joined().to_list() == strings
    seen = scattered.permuted(np.array(order, dtype=np.int64))
    expected = [strings[k] for k in order]
    assert len(seen) == len(expected)
    assert seen.joined().to_list() == expected
    assert seen.hashes().tolist() == ByteKeys.from_strings(expected).hashes().tolist()
    pick = np.array([rnd.randrange(len(expected)) for _ in range(10)] if expected else [], int)
    assert seen.take(pick).to_list() == [expected[k] for k in pick.tolist()]
    # row comparisons, either way round and against plain keys of another width
    other = ByteKeys.from_strings(["x" * 40, *expected])
    a = np.array([rnd.randrange(len(expected)) for _ in range(12)] if expected else [], int)
    b = np.array([rnd.randrange(len(expected)) for _ in range(len(a))], int)
    want = [expected[x] == expected[y] for x, y in zip(a.tolist(), b.tolist(), strict=True)]
    assert seen.rows_equal(a, seen, b).tolist() == want
    assert seen.rows_equal(a, other, b + 1).tolist() == want
    assert other.rows_equal(b + 1, seen, a).tolist() == want


def test_rows_compare_a_slice_at_a_time_and_across_widths(monkeypatch) -> None:
    from judgeapp import bytekeys as keys

    monkeypatch.setattr(keys, "_CHUNK_ROWS", 3)
    narrow = ByteKeys.from_strings(["a", "bb", "ccc", "dddddddd", "e", "ffffffffX", "g" * 10])
    wide = ByteKeys.from_strings(["a", "bb", "ccC", "dddddddd", "é", "ffffffffY", "g" * 10])
    wide = ByteKeys.concat([wide, ByteKeys.from_strings(["y" * 30])])
    assert narrow.width == 16 and wide.width == 32
    rows = np.arange(7)
    want = [True, True, False, True, False, False, True]
    assert narrow.rows_equal(rows, wide, rows).tolist() == want
    assert wide.rows_equal(rows, narrow, rows).tolist() == want


@pytest.mark.parametrize("float32", [False, True])
def test_run_rows_in_bulk_equal_the_line_readers_in_either_order(tmp_path, float32) -> None:
    # scores equal as C floats but not as doubles reorder under trec_eval 9.x (float32);
    # ties, a topic out of order, long docnos in several blocks
    lines = [
        "2 Q0 b 1 0.30000001 t",
        "2 Q0 a 2 0.30000002 t",
        "1 Q0 " + "z" * 50 + " 1 5 t",
        "1 Q0 y 2 5 t",
        "1 Q0 x 3 4.5 t",
        "2 Q0 c 3 0.30000003 t",
    ]
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines * 1) + "\n")
    precise = bulk.RunRows.of_columns(read_run_lines(path))
    want = precise.reordered(float32) if float32 else precise
    got = bulk._read_run_rows(str(path), 64, float32)  # blocks of 64 bytes: several
    assert len(got.docnos.parts) > 1

    def in_order(rows: bulk.RunRows) -> tuple:
        docnos = rows.docnos if rows.order is None else rows.docnos.permuted(rows.order)
        columns = (rows.topic, rows.hashes, rows.lines)
        return (docnos.joined().to_list(), *(rows.in_order(c).tolist() for c in columns))

    assert got.qids == want.qids == ["1", "2"]
    assert got.bounds.tolist() == want.bounds.tolist() == [0, 3, 6]
    assert in_order(got) == in_order(want)
    if float32:  # the three equal floats of topic 2 by docno descending, not file order
        assert in_order(got)[0][3:] == ["c", "b", "a"]


def test_a_run_in_no_order_reads_as_the_line_reader_reads_it(tmp_path: Path) -> None:
    # every line a stretch of its own (more than _FEW_STRETCHES a block), ties, qids that
    # share their first 8 bytes; blocks of 4 KiB
    rng = np.random.default_rng(7)
    lines = [
        f"{qid} Q0 D{doc} {rank} {score} r"
        for qid in ("topic-000001", "topic-000002", "3", "topic-0000010")
        for rank, (doc, score) in enumerate(
            zip(
                rng.choice(5000, 300, replace=False).tolist(), rng.integers(0, 40, 300), strict=True
            ),
            1,
        )
    ]
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines[i] for i in rng.permutation(len(lines))) + "\n")
    columns = bulk._read_run(str(path), 4096)
    same_run(columns, read_run_lines(path))
    assert columns.qids == ["3", "topic-000001", "topic-0000010", "topic-000002"]
