"""`evaluate --db --inferred`: xinfAP, infNDCG and statAP of a project's runs from its sample
pool, in the documented tab-separated format."""

from __future__ import annotations

from live_project import write_project

import judgeapp
from judgeapp.cli import main
from judgeapp.services.inferred import project_inferred
from judgeapp.services.pools import PoolService
from judgeapp.store import Store

DEPTH = 10


def inferred_table(capsys, db, *extra) -> tuple[str, dict[tuple[str, str, str], float]]:
    assert main(["evaluate", "--db", str(db), "--inferred", *extra]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("# sample pool ")
    assert lines[1].split("\t") == ["runid", "measure", "topic", "value"]
    rows = {}
    for line in lines[2:]:
        runid, measure, topic, value = line.split("\t")
        rows[runid, measure, topic] = value
    return lines[0], rows


def trec_eval_lines(capsys, qrels, run) -> dict[tuple[str, str], str]:
    """(measure, topic) -> value that `evaluate -q -m map -m ndcg` prints (as trec_eval 9.x,
    which averages over the run's topics when it lacks one, as --inferred does)."""
    args = ["-q", "-m", "map", "-m", "ndcg", "--trec-eval", "9", str(qrels), str(run)]
    assert main(["evaluate", *args]) == 0
    out = {}
    for line in capsys.readouterr().out.splitlines():
        name, qid, value = (x.strip() for x in line.split("\t"))
        out[name, qid] = value
    return out


def population(project) -> dict[tuple[str, str], None]:
    """The (topic, docno) pairs the runs retrieve down to DEPTH: what the sample is drawn
    from."""
    return {
        (qid, docno): None
        for lists in project.lists.values()
        for qid, docs in lists.items()
        for docno in docs[:DEPTH]
    }


def test_a_sample_of_the_whole_population_gives_trec_evals_ap_and_ndcg(tmp_path, capsys):
    project = write_project(tmp_path / "p")
    # more than the population: every document drawn; those judged already are stratum 0
    assert main(["pool", str(project.db), "--strategy", "sample", "--budget", "500",
                 "--depth", str(DEPTH), "--name", "s", "--seed", "2"]) == 0  # fmt: skip
    capsys.readouterr()
    judged = {}
    for line in project.qrels.read_text().splitlines():
        q, _, d, g = line.split()
        judged[q, d] = int(g)
    pairs = population(project)
    # the rest judged now: every fourth relevant
    rest = {key: int(i % 4 == 0) for i, key in enumerate(pairs) if key not in judged}
    qrels = tmp_path / "rest.qrels"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in rest.items()))
    assert main(["import", "qrels", str(project.db), str(qrels), "--name", "rest"]) == 0
    capsys.readouterr()
    header, rows = inferred_table(capsys, project.db, "-q")
    n = len(pairs)
    assert header.startswith(f"# sample pool s: {n} of {n} sampled documents judged")
    # trec_eval with the population's grades as the qrels
    grades = {key: judged.get(key, rest.get(key)) for key in pairs}
    truth = tmp_path / "population.qrels"
    truth.write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in grades.items()))
    checked = 0
    for name, path in project.runs.items():
        expected = trec_eval_lines(capsys, truth, path)
        for (measure, qid), value in expected.items():
            if measure == "runid" or qid == "all":
                continue
            if measure == "map":
                assert rows[name, "statAP", qid] == value
                assert abs(float(rows[name, "xinfAP", qid]) - float(value)) <= 1e-4
            else:
                assert rows[name, "infNDCG", qid] == value
            checked += 1
        assert rows[name, "statAP", "all"] == expected["map", "all"]
        assert rows[name, "infNDCG", "all"] == expected["ndcg", "all"]
    assert checked > 20
    # -m picks measures; per-topic rows only with -q
    _, rows = inferred_table(capsys, project.db, "-m", "statAP")
    assert {(m, t) for _, m, t in rows} == {("statAP", "all")}


def test_a_partly_judged_sample_counts_its_judged_documents(tmp_path, capsys):
    project = write_project(tmp_path / "p")
    with Store.open(project.db) as store:
        PoolService(store).create_pool(
            "s", strategy="sample", params={"budget": 8, "depth": DEPTH}, seed=5
        )
        sampled = sum(store.pools.sizes("s").values())
        found = project_inferred(store)
    # only the documents judged before the draw (stratum 0) are judged
    assert found.judged < sampled
    header, rows = inferred_table(capsys, project.db)
    assert f"{found.judged} of {sampled} sampled documents judged" in header
    assert {runid for runid, _, _ in rows} == set(project.runs)
    for (runid, measure, _), value in rows.items():
        assert f"{found.mean(measure, runid):.4f}" == value
        assert 0.0 <= float(value) <= 1.0
    # the Python API gives the same table
    with judgeapp.open(project.db) as p:
        table = p.inferred()
        per_topic = p.inferred(per_topic=True)
    assert {(r, m, "all"): f"{v:.4f}" for r, m, v in table.values.tolist()} == rows
    assert set(per_topic["query_id"]) == set(found.qids)


def test_inferred_needs_a_sample_pool_and_its_own_measures(tmp_path, capsys):
    project = write_project(tmp_path / "p")
    assert main(["evaluate", "--db", str(project.db), "--inferred"]) == 2
    assert "no sample pool" in capsys.readouterr().err
    with Store.open(project.db) as store:
        PoolService(store).create_pool("d", strategy="depth", params={"depth": 5})
        PoolService(store).create_pool("s", strategy="sample", params={"budget": 8, "depth": 5})
    assert main(["evaluate", "--db", str(project.db), "--inferred", "d"]) == 2
    assert "not a sample" in capsys.readouterr().err
    assert main(["evaluate", "--db", str(project.db), "--inferred", "-m", "map"]) == 2
    assert "-m takes xinfAP, infNDCG, statAP" in capsys.readouterr().err
    assert main(["evaluate", "--inferred", str(project.qrels), str(project.runs["weak"])]) == 2
    assert "--inferred goes with --db" in capsys.readouterr().err
