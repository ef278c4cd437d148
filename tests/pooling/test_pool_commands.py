"""`pool` and `simulate` on small files; every expected number was worked out by hand."""

from __future__ import annotations

import csv

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
        info = store.pool("depth-2")
        assert (info.judging_order, info.seed, info.runs) == ("mtf", 3, ("A", "B"))
        assert store.pool_sizes("depth-2") == {"1": 3, "3": 2}
        assert store.pool_sizes("rrf-1") == {"1": 1}
        topic = PoolService(store).pool_topic("rrf-1", "1")
        assert store.docnos_of(topic.doc_ids) == {int(topic.doc_ids[0]): "d1"}


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
