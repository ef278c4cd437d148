"""The compiled run reader (judgeapp/formats/_runread.c, through judgeapp.formats.judged_runs)
against the numpy one it stands in for: random valid run files (ties, tabs and spaces, CRLF,
comments, unicode and long ids, numbers written every way, topics interleaved) give the same
runs, in trec_eval 10.0's and 9.x's order; every file it does not take as it is goes to the
numpy reader, which reads it or says what is wrong, so `evaluate` prints the same either
way; and `evaluate` on real runs equals trec_eval's printed output by either reader."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from judgeapp.cli import main
from judgeapp.formats import FormatError, bulk, judged_runs
from judgeapp.formats.bulk import read_qrels_columns, read_run_rows
from judgeapp.measures.data import Run
from judgeapp.measures.files import (
    JudgedDocnos,
    judgments_from_columns,
    judgments_from_compiled,
    read_judged,
    read_run,
    run_from_rows,
)
from tests.formats.test_bulk import SETTINGS, qrels_files, run_files
from tests.hostile.mutations import KINDS, mutate, source

ROOT = Path(__file__).resolve().parents[2]

needs_compiled = pytest.mark.skipif(
    judged_runs.compiled is None, reason="the compiled run reader is not built"
)


def judged_of(folder: Path, docnos: list[str], qids: list[str]) -> JudgedDocnos:
    path = folder / "qrels.txt"
    lines = [f"{q} 0 {d} {(i + k) % 3}\n" for k, q in enumerate(qids) for i, d in enumerate(docnos)]
    path.write_text("".join(lines) or "1 0 none 1\n", encoding="utf-8")
    return judgments_from_columns(read_qrels_columns(path))


def numpy_road(path: Path, judged: JudgedDocnos, float32: bool) -> Run:
    rows = read_run_rows(path, float32, lines=False)
    return run_from_rows(rows, judged, name=str(path))


def compiled_road(path: Path, judged: JudgedDocnos, float32: bool, block: int) -> Run:
    rows = judged_runs.read_judged_run(str(path), judged.compiled, float32, block)
    assert rows is not None  # taken by the compiled reader, not handed on
    assert rows.ids.dtype == np.int64 and rows.bounds.dtype == np.int64
    b = rows.bounds.tolist()
    topics = {q: rows.ids[b[k] : b[k + 1]] for k, q in enumerate(rows.qids)}
    return Run(str(path), topics, rows.tag)


def same(a: Run, b: Run) -> None:
    assert (a.name, a.tag, list(a.topics)) == (b.name, b.tag, list(b.topics))
    for qid, ids in a.topics.items():
        assert ids.tolist() == b.topics[qid].tolist(), qid


def tokens_of(text: str, column: int) -> list[str]:
    out = []
    for line in text.splitlines():
        cols = line.split()  # str.split: \xa0 and \u2003 too, which ids may hold
        if cols and not cols[0].startswith("#") and len(cols) > column:
            out.append(cols[column])
    return out


@needs_compiled
@SETTINGS
@given(run_files(), st.sampled_from([1 << 20, 64]), st.integers(0, 3), st.booleans())
def test_random_valid_runs_read_the_same_by_both_readers(
    tmp_path_factory, case, block, every, float32
):
    text, _ = case
    folder = tmp_path_factory.mktemp("run")
    path = folder / "run.txt"
    path.write_bytes(text.encode("utf-8"))
    # judged: some of the run's docnos (split on ASCII white space only, as trec_eval)
    raw = [line.split() for line in text.encode().splitlines()]
    docnos = sorted({c[2].decode() for c in raw if len(c) > 2 and not c[0].startswith(b"#")})
    judged = judged_of(folder, [*docnos[:: every + 1], "not-in-the-run"], ["x"])
    same(compiled_road(path, judged, float32, block), numpy_road(path, judged, float32))


@needs_compiled
@pytest.mark.parametrize("float32", [False, True])
def test_scores_written_every_way_order_as_float_orders_them(tmp_path, float32):
    scores = [
        "1e3", "-1E-3", "+.5", "5.", "inf", "-Infinity", "1e400", "-0", "0.0", "000123.4500",
        "0.1000000000000000055511151231257827", "12345678901234567890", "9007199254740993",
        "9007199254740992", "4.9e-324", "1.7976931348623157e308", "0.30000001", "0.30000002",
        "+0.30000003", "1234567890123456789", "0.5e0", "5E-1", "123456789012.3456789",
    ]  # fmt: skip
    lines = [f"7 Q0 D{i:02d} {i} {s} tag" for i, s in enumerate(scores)]
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines) + "\n")
    judged = judged_of(tmp_path, [f"D{i:02d}" for i in range(0, len(scores), 2)], ["7"])
    got = compiled_road(path, judged, float32, 1 << 20)
    same(got, numpy_road(path, judged, float32))
    # what the order is: float() of each score, descending, ties by docno descending
    with np.errstate(over="ignore"):  # 1e400 and the largest double: inf as a C float
        value = [float(np.float32(float(s))) if float32 else float(s) for s in scores]
    order = sorted(range(len(scores)), key=lambda i: (-value[i], -i))
    ids = [int(judged.table.lookup(bulk.ByteKeys.from_strings([f"D{i:02d}"]))[0]) for i in order]
    want = [judged.unjudged_id if i < 0 else i for i in ids]
    assert got.topics["7"].tolist() == want


def test_many_topics_interleaved_read_the_same(tmp_path):
    """More topics than the reader's first table of qids holds, their lines shuffled; ties
    everywhere; docnos of many lengths; judged docnos a table that grows."""
    rng = np.random.default_rng(28)
    lines = [
        f"q{t * 37 % 1000}\tQ0  doc-{d}{'x' * (d % 40)} {r} {rng.integers(0, 20) / 4} run\r"
        for t in range(300)
        for r, d in enumerate(rng.choice(3000, 40, replace=False).tolist())
    ]
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines[i] for i in rng.permutation(len(lines))) + "\n")
    judged = judged_of(tmp_path, [f"doc-{d}{'x' * (d % 40)}" for d in range(0, 3000, 3)], ["1"])
    for float32 in (False, True):
        want = numpy_road(path, judged, float32)
        assert len(want.topics) == 300
        if judged.compiled is not None:
            same(compiled_road(path, judged, float32, 4096), want)


IRREGULAR = {
    "a control character": "1 Q0 d1 1 2.5 t\n1 Q0 d\x012 2 2.0 t\n",
    "a control character in a comment": "# a \x02 comment\n1 Q0 d1 1 2.5 t\n",
    "five columns": "1 Q0 d1 1 2.5 t\n1 Q0 d2 2 2.0\n",
    "a docno twice in a topic": "1 Q0 d1 1 2.5 t\n2 Q0 d1 1 2.5 t\n1 Q0 d1 2 2.0 t\n",
    "a score with _": "1 Q0 d1 1 1_0 t\n",
    "a NaN score": "1 Q0 d1 1 nan t\n",
    "a hex score": "1 Q0 d1 1 0x10 t\n",
    "a score in Arabic digits": "1 Q0 d1 1 \u0661 t\n",
    "a score of a sign alone": "1 Q0 d1 1 - t\n",
    "no data line": "# only a comment\n\n",
    "an empty file": "",
    "a docno longer than the reader cuts out": f"1 Q0 {'d' * (bulk.MAX_TOKEN + 1)} 1 2 t\n",
    "a line as long as the longest taken": f"1 Q0 d 1 2 t {'x' * bulk.MAX_LINE}\n",
    "not UTF-8": "1 Q0 d\xff 1 2 t\n",
}


def read_alike(path, judged) -> None:
    """`read_run` gives what the numpy reader alone gives: the same run, or the same error
    (file, line, problem)."""
    try:
        want = numpy_road(path, judged, False)
    except FormatError as exc:
        with pytest.raises(FormatError) as got:
            read_run(path, judged)
        assert str(got.value) == str(exc)
    else:
        same(read_run(path, judged), want)


@needs_compiled
@pytest.mark.parametrize("name", IRREGULAR)
def test_files_not_taken_as_they_are_go_to_the_numpy_reader(tmp_path, name):
    path = tmp_path / "run.txt"
    text = IRREGULAR[name]
    path.write_bytes(text.encode("latin-1" if name == "not UTF-8" else "utf-8"))
    judged = judged_of(tmp_path, ["d1", "d2"], ["1"])
    assert judged_runs.read_judged_run(str(path), judged.compiled) is None
    read_alike(path, judged)


@needs_compiled
@SETTINGS
@given(
    st.tuples(st.sampled_from(KINDS), st.floats(0, 1, exclude_max=True), st.integers(0, 1 << 16)),
    st.integers(0, 1),
    st.sampled_from([1 << 20, 64]),
)
def test_mutated_runs_read_or_fail_alike_by_both_readers(tmp_path_factory, mutation, index, block):
    """The hostile corpus's mutations of valid runs (truncated, NUL, CR only, BOMs, huge
    numbers, long lines, ...): the same run, or the same error (file, line, problem)."""
    folder = tmp_path_factory.mktemp("mutated")
    original = source("run", index)
    path = folder / original.name
    path.write_bytes(mutate(original.read_bytes(), *mutation))
    judged = judged_of(folder, [f"D{i}" for i in range(0, 30, 2)], ["401"])
    if judged.compiled is not None:  # the compiled reader is tried on every one
        judged_runs.read_judged_run(str(path), judged.compiled, False, block)
    read_alike(path, judged)


def judged_pairs(judged: JudgedDocnos) -> dict[str, list[tuple[str, int]]]:
    """Each topic's (docno, grade) pairs: what a qrels file says, whatever the numbering."""
    docnos = judged.table.keys.to_list()
    return {
        qid: sorted(zip([docnos[i] for i in t.docids.tolist()], t.grades.tolist(), strict=True))
        for qid, t in judged.judgments.topics.items()
    }


@needs_compiled
@SETTINGS
@given(qrels_files(), st.sampled_from([1 << 20, 64]))
def test_random_valid_qrels_read_the_same_by_both_readers(tmp_path_factory, text, block):
    path = tmp_path_factory.mktemp("qrels") / "qrels.txt"
    path.write_bytes(text.encode("utf-8"))
    read = judged_runs.read_judged_qrels(str(path), block)
    assert read is not None  # taken by the compiled reader
    assert all(
        (np.diff(read.ids[a:b]) > 0).all()
        for a, b in zip(read.bounds, read.bounds[1:], strict=False)
    )
    numpy = judgments_from_columns(read_qrels_columns(path))
    compiled = judgments_from_compiled(read)
    assert compiled.compiled is not None and compiled.unjudged_id == numpy.unjudged_id
    assert list(compiled.judgments.topics) == list(numpy.judgments.topics) == read.qids
    assert judged_pairs(compiled) == judged_pairs(numpy)


IRREGULAR_QRELS = {
    "five columns": "1 0 d1 1\n1 0 d2 1 x\n",
    "a grade out of range": "1 0 d1 1001\n",
    "a grade with a point": "1 0 d1 1.0\n",
    "a grade of a sign alone": "1 0 d1 -\n",
    "a docno twice in a topic": "1 0 d1 1\n2 0 d1 1\n1 0 d1 0\n",
    "a control character": "1 0 d\x011 1\n",
    "no data line": "# nothing\n",
}


@needs_compiled
@pytest.mark.parametrize("name", IRREGULAR_QRELS)
def test_qrels_not_taken_as_they_are_go_to_the_numpy_reader(tmp_path, monkeypatch, name):
    path = tmp_path / "qrels.txt"
    path.write_text(IRREGULAR_QRELS[name], encoding="utf-8")
    assert judged_runs.read_judged_qrels(str(path)) is None
    with monkeypatch.context() as numpy_only:
        numpy_only.setattr(judged_runs, "compiled", None)
        try:
            want = judged_pairs(read_judged(path))
        except FormatError as exc:
            with pytest.raises(FormatError) as got:
                read_judged(path)
            assert str(got.value) == str(exc)
            return
    assert judged_pairs(read_judged(path)) == want


def test_without_the_compiled_module_runs_are_read_by_numpy(tmp_path):
    """JUDGEAPP_NO_COMPILED (or a machine where it was not built) leaves `evaluate` to
    numpy, which prints the same."""
    code = (
        "from judgeapp.formats import judged_runs; from judgeapp.bytekeys import ByteKeys; "
        "print(judged_runs.compiled, judged_runs.docno_table(ByteKeys.from_strings(['a'])))"
    )
    env = {**os.environ, "JUDGEAPP_NO_COMPILED": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True)
    assert out.stdout.decode().split() == ["None", "None"], out.stderr


ROBUST_RUNS = ["rutcor03100", "UIUC03Rd1", "VTcdhgp1"]  # ~100k ties; gzipped


@pytest.mark.slow
@pytest.mark.parametrize(
    ("version", "folder"), [(10, "robust03_trec_eval_v10"), (9, "robust03_trec_eval_9.0.4")]
)
def test_evaluate_from_files_prints_what_trec_eval_prints(
    shared_data, run_reader, capsys, version, folder
):
    base = shared_data / "robust03"
    runs = [str(base / "runs" / f"input.{name}.gz") for name in ROBUST_RUNS]
    qrels = str(base / "robust03_qrels.txt")
    version_args = ["--trec-eval", "9"] if version == 9 else []
    assert main(["evaluate", *version_args, "-q", "-m", "all_trec", qrels, *runs]) == 0
    got = capsys.readouterr().out
    outputs = base / "trec_eval-outputs" / folder
    expected = "".join(
        gzip.open(outputs / f"{name}.all_trec.q.txt.gz", "rt").read() for name in ROBUST_RUNS
    )
    assert got == expected


@needs_compiled
def test_a_run_left_to_numpy_is_looked_up_among_the_compiled_readers_judged(
    tmp_path, monkeypatch, capsys
):
    """qrels read by the compiled reader (docnos numbered in C), then a run it does not
    take (a docno longer than it cuts out) read by numpy and the line reader, looked up
    in a KeyTable of the compiled reader's numbering: what numpy alone prints."""
    long_docno = "L" * (bulk.MAX_TOKEN + 1)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"7 0 {d} {g}\n" for d, g in [("d3", 1), ("d2", 2), ("d1", 0)]))
    runs = []
    for k, docnos in enumerate([["d1", long_docno, "d2", "d3"], ["d3", "d1", "d9"]]):
        run = tmp_path / f"run{k}.txt"
        run.write_text("".join(f"7 Q0 {d} {i} {9 - i} r{k}\n" for i, d in enumerate(docnos)))
        runs.append(str(run))
    judged = read_judged(qrels)
    assert judged.compiled is not None  # the qrels: the compiled reader's
    assert judged_runs.read_judged_run(runs[0], judged.compiled) is None  # the run: numpy's
    argv = ["evaluate", "-q", "-m", "all_trec", str(qrels), *runs]
    assert main(argv) == 0
    both = capsys.readouterr().out
    monkeypatch.setattr(judged_runs, "compiled", None)
    assert main(argv) == 0
    assert both == capsys.readouterr().out
    assert both.count("runid") == 2
