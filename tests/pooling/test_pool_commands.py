"""`pool` and `simulate` on small files; every expected number was worked out by hand."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from judgeapp.cli import main
from judgeapp.commands.pool import ORDER_CHOICES, STRATEGY_CHOICES
from judgeapp.pooling import ORDERS, STRATEGIES
from judgeapp.services.pools import PoolService
from judgeapp.store import Store


def write_run(path, tag: str, topics: dict[str, list[str]]) -> str:
    with open(path, "w") as fh:
        for qid, docs in topics.items():
            for rank, doc in enumerate(docs, 1):
                fh.write(f"{qid} Q0 {doc} {rank} {100 - rank} {tag}\n")
    return str(path)


@pytest.fixture
def files(tmp_path):
    a = write_run(tmp_path / "a.run", "A", {"1": ["d1", "d2", "d3"], "3": ["x1", "x2"]})
    b = write_run(tmp_path / "b.run", "B", {"1": ["d4", "d1", "d6"]})
    qrels = tmp_path / "q.txt"
    # d6 is pooled but unjudged; d9 is relevant but no run found it; topic 2 has no run
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n1 0 d4 0\n1 0 d5 1\n1 0 d9 1\n2 0 d1 1\n")
    return tmp_path, a, b, str(qrels)


def test_every_option_of_pool_scale_and_screenshot_has_help():
    import argparse

    from judgeapp.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name in ("pool", "scale", "screenshot"):
        for action in sub.choices[name]._actions:
            assert action.help, (name, action.option_strings or action.dest)


def test_pool_warns_when_pooled_documents_have_no_text(files, capsys):
    tmp, a, _b, _ = files
    db = str(tmp / "p.db")
    assert main(["import", "run", db, a, "--create"]) == 0
    capsys.readouterr()
    assert main(["pool", db, "--depth", "2"]) == 0
    err = capsys.readouterr().err
    assert "warning: 4 of 4 pooled documents have no text in the project" in err
    docs = tmp / "docs.tsv"
    docs.write_text("d1\tone\nd2\ttwo\nd3\tthree\nx1\tfour\nx2\tfive\n")
    assert main(["import", "docs", db, str(docs)]) == 0
    capsys.readouterr()
    assert main(["pool", db, "--depth", "3", "--name", "deeper"]) == 0
    assert "no text" not in capsys.readouterr().err


def test_cli_choices_match_the_core():
    assert set(ORDER_CHOICES) == set(ORDERS)
    assert set(STRATEGY_CHOICES) == set(STRATEGIES)


def test_pool_command_takes_the_ridge_fusion_order(files, capsys):
    tmp, a, _, _ = files
    db = str(tmp / "p.db")
    assert main(["import", "run", db, a, "--create"]) == 0
    assert main(["pool", db, "--depth", "2", "--order", "ridge-fusion"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "pool depth-2: depth-2 pooling of 1 run, judged in ridge-fusion order"


def test_pool_command_builds_and_grows_a_pool(files, capsys):
    tmp, a, b, _ = files
    db = str(tmp / "p.db")
    assert main(["import", "run", db, a, "--create"]) == 0
    assert main(["pool", db, "--depth", "2", "--order", "mtf", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    # a readable summary: what was pooled, from how many runs, in which order; sizes
    assert out.splitlines()[:3] == [
        "pool depth-2: depth-2 pooling of 1 run, judged in mtf order",
        "2 topics, 4 documents (2 per topic)",
        "runs: A",
    ]
    assert "{" not in out
    assert main(["import", "run", db, b]) == 0
    assert main(["pool", db, "--add-to", "depth-2", "--runs", "B"]) == 0
    out = capsys.readouterr().out
    # d4 (d1 was pooled)
    assert "pool depth-2 grew by 1 document with 1 run B: now depth-2 pooling" in out
    assert "2 topics, 5 documents (per topic 2 to 3, median 2.5)" in out
    assert main(["pool", db, "--budget", "1", "--strategy", "rrf", "--topics", "1-2"]) == 0
    out = capsys.readouterr().out
    assert "pool rrf-1: Take@1 by reciprocal-rank fusion (k=60) of 2 runs" in out
    assert "1 topic, 1 document (1 per topic)" in out
    with Store.open(db) as store:
        info = store.pools.get("depth-2")
        assert (info.judging_order, info.seed, info.runs) == ("mtf", 3, ("A", "B"))
        assert store.pools.sizes("depth-2") == {"1": 3, "3": 2}
        assert store.pools.sizes("rrf-1") == {"1": 1}
        topic = PoolService(store).pool_topic("rrf-1", "1")
        assert store.documents.docnos_of(topic.doc_ids) == {int(topic.doc_ids[0]): "d1"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--strategy", "rbp"], "give --depth K or --budget N"),
        (["--depth", "5", "--p", "0.5"], "--p is the persistence of --strategy rbp"),
        (["--depth", "5", "--topics", "7"], "no topic matches '7'"),
        (["--depth", "5", "--runs", "Z"], "no run named 'Z'"),
        (["--add-to", "nope"], "no pool named 'nope'"),
    ],
)
def test_pool_command_errors(files, capsys, argv, message):
    tmp, a, _, _ = files
    db = str(tmp / "p.db")
    main(["import", "run", db, a, "--create"])
    capsys.readouterr()
    assert main(["pool", db, *argv]) == 2
    assert message in capsys.readouterr().err


def test_simulate_prints_the_table_and_writes_curves(files, capsys):
    tmp, a, b, qrels = files
    out = tmp / "sim"
    argv = ["simulate", "--qrels", qrels, "--runs", a, b, "--depth", "3"]
    argv += ["--strategy", "rank,mtf,maxmean", "--out", str(out)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    # pool of topic 1: d1 d2 d3 (A), d4 d1 d6 (B); relevant d1, d3; d6 unjudged
    # rank:    d1 R, d4, d2, d3 R, d6 -> found 1 1 1 2 2
    # mtf:     A: d1 R, d2 N; B: d4 N; A: d3 R; B: d6 -> 1 1 1 2 2
    # maxmean: A: d1 R (2/3), d2 N (1/2, ties B: A first), d3 R; B: d4, d6 -> 1 1 2 2 2
    assert captured.out == (
        "strategy\tjudged_50\tjudged_80\tjudged_90\tjudged_100\n"
        "rank\t1\t4\t4\t4\n"
        "mtf\t1\t4\t4\t4\n"
        "maxmean\t1\t3\t3\t3\n"
    )
    assert "1 pooled documents are not in the qrels and count as non-relevant" in captured.err
    with open(out / "found_vs_judged.csv") as fh:
        rows = [r for r in csv.DictReader(fh) if r["strategy"] == "maxmean"]
    assert [int(r["found"]) for r in rows] == [0, 1, 1, 2, 2, 2]
    with open(out / "judging_orders.csv") as fh:
        mtf = [r["docno"] for r in csv.DictReader(fh) if r["strategy"] == "mtf"]
    assert mtf == ["d1", "d2", "d4", "d3", "d6"]
    assert (out / "found_vs_judged.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Zobel: A alone pooled d2, d3; B alone d4, d6. R = 4 (d1 d3 d5 d9).
    # A: AP = (1/1 + 2/3) / 4 = 0.4167; without d2, d3: R = 3, AP = 1/3
    # B: AP = (1/2) / 4 = 0.125; without d4 (non-relevant) and d6 (unjudged): unchanged
    with open(out / "pool_bias.csv") as fh:
        bias = {r["run"]: r for r in csv.DictReader(fh)}
    assert (bias["A"]["AP_full"], bias["A"]["AP_reduced"]) == ("0.4167", "0.3333")
    assert (bias["B"]["AP_full"], bias["B"]["AP_reduced"]) == ("0.1250", "0.1250")
    assert (bias["A"]["unique_docs"], bias["A"]["unique_relevant"]) == ("2", "1")
    assert (bias["B"]["rank_full"], bias["B"]["rank_reduced"]) == ("2", "2")
    assert "Kendall's tau between the rankings by full and by reduced MAP: 1.0000" in captured.err


def test_simulate_refuses_an_unknown_strategy(files, capsys):
    tmp, a, _, qrels = files
    argv = ["simulate", "--qrels", qrels, "--runs", a, "--depth", "3", "--strategy", "mtf,magic"]
    assert main([*argv, "--out", str(tmp / "x")]) == 2
    assert "unknown strategy 'magic'" in capsys.readouterr().err


def test_simulate_replays_the_suggested_order_from_an_automatic_judge(files, capsys):
    tmp, a, b, qrels = files
    # pool of topic 1 (see above): d1 d2 d3 d4 d6; relevant d1, d3. The automatic judge
    # scores d3 highest, then d2, then d1; d4 and d6 it did not score (rank order after):
    # suggested: d3 R, d2, d1 R, then d4, d6 -> 2 relevant after 3 judgments
    suggestions = tmp / "llm.qrels"
    suggestions.write_text("1 0 d3 1 0.9\n1 0 d2 0 0.6\n1 0 d1 1 0.4\n")
    out = tmp / "sim"
    argv = ["simulate", "--qrels", qrels, "--runs", a, b, "--depth", "3", "--no-bias"]
    argv += ["--strategy", "suggested,rank", "--suggestions", str(suggestions)]
    assert main([*argv, "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[1:] == ["suggested\t1\t3\t3\t3", "rank\t1\t4\t4\t4"]
    with open(out / "judging_orders.csv") as fh:
        order = [r["docno"] for r in csv.DictReader(fh) if r["strategy"] == "suggested"]
    assert order == ["d3", "d2", "d1", "d4", "d6"]


def test_simulate_suggested_needs_the_automatic_judge(files, capsys):
    tmp, a, _, qrels = files
    argv = ["simulate", "--qrels", qrels, "--runs", a, "--depth", "3", "--strategy", "suggested"]
    assert main([*argv, "--out", str(tmp / "x")]) == 2
    assert "--suggestions FILE" in capsys.readouterr().err


def test_simulate_cal_reads_the_documents_and_the_statements(tmp_path, capsys):
    from tests.pooling.test_text_order import LISTS, QUERY, TEXTS

    runs = [
        write_run(tmp_path / f"{tag}.run", tag, {"1": [f"d{d}" for d in ids.tolist()]})
        for tag, ids in LISTS.items()
    ]
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"1 0 d{d} {int(d in (1, 2, 5, 7))}\n" for d in TEXTS))
    docs = tmp_path / "docs.tsv"
    docs.write_text("".join(f"d{d}\t{text}\n" for d, text in TEXTS.items()))
    topics = tmp_path / "topics.tsv"
    topics.write_text(f"1\t{QUERY}\n")
    argv = ["simulate", "--qrels", str(qrels), "--runs", *runs, "--depth", "10", "--no-bias"]
    argv += ["--strategy", "cal", "--out", str(tmp_path / "sim")]
    assert main(argv) == 2
    assert "the cal order learns from the documents' text: give --docs FILE" in (
        capsys.readouterr().err
    )
    assert main([*argv, "--docs", str(docs), "--queries", str(topics)]) == 0
    # the four flutter documents first (test_text_order): 2 judgments for half of them,
    # 4 for 80%, 90% and all
    assert capsys.readouterr().out.splitlines()[1:] == ["cal\t2\t4\t4\t4"]


@pytest.fixture
def collection(tmp_path):
    """Eight topics, four runs of 60 documents from 150 per topic; 12 relevant documents a
    topic, which the runs rank high more often than not."""
    rng = np.random.default_rng(5)
    runs: dict[str, dict[str, list[str]]] = {tag: {} for tag in "ABCD"}
    lines = []
    for q in range(1, 9):
        docs = [f"t{q}d{i}" for i in range(150)]
        relevant = set(rng.choice(150, 12, replace=False).tolist())
        lines += [f"{q} 0 {docs[i]} {int(i in relevant)}\n" for i in range(150)]
        for tag in runs:
            score = rng.random(150) + 0.6 * np.isin(np.arange(150), list(relevant))
            runs[tag][str(q)] = [docs[i] for i in np.argsort(-score)[:60]]
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(lines))
    paths = [write_run(tmp_path / f"{t}.run", t, topics) for t, topics in runs.items()]
    return tmp_path, paths, str(qrels)


def replayed(out, strategy):
    """qid -> relevance in judging order, from the judging_orders.csv simulate wrote."""
    got: dict[str, list[bool]] = {}
    with open(out / "judging_orders.csv") as fh:
        for r in csv.DictReader(fh):
            if r["strategy"] == strategy:
                got.setdefault(r["qid"], []).append(r["relevant"] == "1")
    return got


def test_simulate_checks_the_estimates_against_the_truth(collection, capsys):
    """Each cell of estimate_coverage.tsv is the share of topics whose interval, asked after
    the first share of the judging order, held the relevant documents judged after it
    (worked out here from the judging orders simulate wrote and the estimator itself)."""
    from judgeapp.pooling.estimate import fit_curve
    from judgeapp.pooling.simulate import case_seed

    tmp, runs, qrels = collection
    out = tmp / "sim"
    argv = ["simulate", "--qrels", qrels, "--runs", *runs, "--depth", "30", "--no-bias"]
    argv += ["--strategy", "blind,mtf", "--out", str(out), "--check-estimates"]
    argv += ["--shares", "0.25,0.5", "--levels", "0.8,0.95"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "pooled over strategies and shares, coverage 80%: " in err
    with open(out / "estimate_coverage.tsv") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    assert list(rows[0]) == [
        "strategy", "judged_share", "level", "cases", "coverage", "median_width", "uncalibrated",
    ]  # fmt: skip
    assert len(rows) == 8
    for row in rows:
        strategy, share, level = row["strategy"], float(row["judged_share"]), float(row["level"])
        hits, widths, loose = [], [], 0
        for qid, relevant in replayed(out, strategy).items():
            n = round(share * len(relevant))
            truth = sum(relevant[n:])
            fit = fit_curve(
                relevant[:n],
                len(relevant),
                order=strategy,
                adaptive=strategy != "blind",
                seed=case_seed(0, qid, n),
            )
            low, high = fit.interval(level)
            hits.append(low <= truth <= high)
            widths.append(high - low)
            loose += not fit.calibrated
        assert int(row["cases"]) == 8
        assert float(row["coverage"]) == pytest.approx(np.mean(hits), abs=1e-4)
        assert float(row["median_width"]) == pytest.approx(np.median(widths))
        assert int(row["uncalibrated"]) == loose
    assert (out / "estimate_coverage.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_simulate_replays_the_stopping_rule(collection, capsys):
    """stopping.tsv: per order, the share of topics whose recall was at the target or above
    when the rule first said stop (checked after every fiftieth of the pool, rounded up:
    every second judgment here), the judgments spent, and the fewest that reached the
    target (worked out here)."""
    from judgeapp.pooling.estimate import fit_curve
    from judgeapp.pooling.simulate import case_seed

    tmp, runs, qrels = collection
    out = tmp / "sim"
    argv = ["simulate", "--qrels", qrels, "--runs", *runs, "--depth", "30", "--no-bias"]
    argv += ["--strategy", "mtf,maxmean", "--out", str(out), "--stop-at", "0.6"]
    argv += ["--confidence", "0.9"]
    assert main(argv) == 0
    assert "target recall 0.6 at confidence 0.9" in capsys.readouterr().err
    with open(out / "stopping.tsv") as fh:
        rows = {r["strategy"]: r for r in csv.DictReader(fh, delimiter="\t")}
    for strategy, row in rows.items():
        reached = spent = hindsight = whole = 0
        topics = replayed(out, strategy)
        for qid, relevant in topics.items():
            size, total = len(relevant), sum(relevant)
            stop = next(
                (
                    n
                    for n in range(math.ceil(size / 50), size, math.ceil(size / 50))
                    if fit_curve(relevant[:n], size, order=strategy, seed=case_seed(0, qid, n))
                    .stop_advice(0.6, 0.9)
                    .stop
                ),
                size,
            )
            reached += sum(relevant[:stop]) >= 0.6 * total
            spent += stop
            need = math.ceil(0.6 * total)
            hindsight += next(n for n in range(size + 1) if sum(relevant[:n]) >= need)
            whole += stop == size
        assert int(row["topics"]) == len(topics) == 8
        assert float(row["reached"]) == pytest.approx(reached / 8, abs=1e-4)
        assert (int(row["judgments"]), int(row["hindsight"])) == (spent, hindsight)
        assert int(row["judged_whole"]) == whole
        assert float(row["ratio"]) == pytest.approx(spent / hindsight, abs=1e-3)


def test_simulate_calibrates_on_the_fit_topics_and_checks_on_the_others(collection, capsys):
    tmp, runs, qrels = collection
    argv = ["simulate", "--qrels", qrels, "--runs", *runs, "--depth", "30", "--no-bias"]
    argv += ["--strategy", "mtf", "--out", str(tmp / "sim"), "--check-estimates"]
    assert main([*argv, "--fit-topics", "1-5"]) == 0
    err = capsys.readouterr().err
    assert "calibrated on 5 topics; checked on the other 3 topics: 6-8" in err
    with open(tmp / "sim" / "estimate_coverage.tsv") as fh:
        assert {r["cases"] for r in csv.DictReader(fh, delimiter="\t")} == {"3"}
    assert main([*argv, "--fit-topics", "1-8"]) == 2
    assert "--fit-topics leaves no topic to check on" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--check-estimates", "--shares", "0.5,1.5"], "--shares values must lie between 0"),
        (["--check-estimates", "--levels", "x"], "--levels takes numbers"),
        (["--stop-at", "0"], "--stop-at is a recall in (0, 1]"),
        (["--stop-at", "0.8", "--confidence", "1"], "--confidence must lie between 0 and 1"),
        (["--fit-topics", "1"], "--fit-topics calibrates for --check-estimates or --stop-at"),
    ],
)
def test_simulate_refuses_bad_check_options_before_any_work(files, capsys, extra, message):
    tmp, a, _, qrels = files
    argv = ["simulate", "--qrels", qrels, "--runs", a, "--depth", "3", "--strategy", "mtf"]
    assert main([*argv, "--out", str(tmp / "x"), *extra]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp / "x" / "found_vs_judged.csv").exists()
