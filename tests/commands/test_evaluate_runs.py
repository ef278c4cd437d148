"""Several runs on the command line say which run each line is about: `evaluate -m map`
opens each run's block with trec_eval's runid line, and `compare --baseline` takes a runid
as well as a file."""

from __future__ import annotations

from judgeapp.cli import main


def write_inputs(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 a 0\n2 0 d 1\n")
    runs = []
    for tag, order in (("alpha", "a b c d"), ("beta", "d c b a"), ("gamma", "b a d c")):
        path = tmp_path / f"{tag}.run"
        path.write_text(
            "".join(
                f"{q} Q0 {doc} {rank} {10 - rank} {tag}\n"
                for q in ("1", "2")
                for rank, doc in enumerate(order.split(), 1)
            )
        )
        runs.append(str(path))
    return str(qrels), runs


def test_each_run_block_of_evaluate_names_its_run(tmp_path, capsys):
    qrels, runs = write_inputs(tmp_path)
    assert main(["evaluate", "-m", "map", qrels, *runs]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert [(name.strip(), qid, value) for name, qid, value in lines[::2]] == [
        ("runid", "all", "alpha"),
        ("runid", "all", "beta"),
        ("runid", "all", "gamma"),
    ]
    assert [name.strip() for name, _, _ in lines[1::2]] == ["map"] * 3
    # per topic too: the runid line opens each block
    assert main(["evaluate", "-q", "-m", "map", qrels, *runs]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split("\t")[2] == "alpha" and out[4].split("\t")[2] == "beta"
    # one run prints exactly as trec_eval does: no line added
    assert main(["evaluate", "-m", "map", qrels, runs[0]]) == 0
    assert [line.split("\t")[0].strip() for line in capsys.readouterr().out.splitlines()] == ["map"]


def test_compare_takes_the_baseline_by_runid(tmp_path, capsys):
    qrels, runs = write_inputs(tmp_path)
    assert main(["compare", qrels, *runs, "--baseline", "beta", "--permutations", "100"]) == 0
    out = capsys.readouterr().out.splitlines()
    baseline = [line for line in out if "(baseline)" in line]
    assert len(baseline) == 1 and baseline[0].split()[1] == "beta"  # by runid, not path
    assert main(["compare", qrels, *runs, "--baseline", "delta"]) == 2
    err = capsys.readouterr().err
    assert "neither a run file nor the runid of a RUN" in err and "alpha, beta, gamma" in err
