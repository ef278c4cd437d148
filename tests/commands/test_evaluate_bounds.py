"""`evaluate --db --bounds`: each run's value today beside its least and greatest value once
the project's pool is judged, in the documented tab-separated format."""

from __future__ import annotations

import pytest
from live_project import write_project

from judgeapp.cli import main
from judgeapp.services.pools import PoolService
from judgeapp.store import Store

MEASURES = ["-m", "map", "-m", "P.5", "-m", "num_rel", "-m", "Rprec"]


@pytest.fixture
def project(tmp_path):
    project = write_project(tmp_path / "p")
    with Store.open(project.db) as store:
        PoolService(store).create_pool(
            "p", runs=list(project.runs), strategy="depth", params={"depth": 5}
        )
    return project


def bounds_table(capsys, db, *extra):
    assert main(["evaluate", "--db", str(db), "--bounds", "-c", *MEASURES, *extra]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("# ") and "pooled documents unjudged" in lines[0]
    assert lines[1].split("\t") == ["runid", "measure", "today", "low", "high", "proven"]
    rows = {}
    for line in lines[2:]:
        runid, measure, today, low, high, proven = line.split("\t")
        rows[runid, measure] = (float(today), float(low), float(high), proven)
    return int(lines[0].split()[1]), rows


def test_bounds_surround_today_and_meet_when_the_pool_is_judged(project, capsys, tmp_path):
    unjudged, rows = bounds_table(capsys, project.db)
    assert unjudged > 0
    # today's values are evaluate --db's
    assert main(["evaluate", "--db", str(project.db), "-c", "-m", "map", "-m", "P.5"]) == 0
    plain = {}
    run = None
    for line in capsys.readouterr().out.splitlines():
        name, _, value = (x.strip() for x in line.split("\t"))
        if name == "runid":
            run = value
        else:
            plain[run, name] = float(value)
    assert plain == {k: v[0] for k, v in rows.items() if k[1] in ("map", "P_5")}
    assert {k[0] for k in rows} == set(project.runs)
    for (_run, measure), (today, low, high, proven) in rows.items():
        assert proven == ("no" if measure == "Rprec" else "yes")
        assert low <= high
        if measure in ("P_5", "num_rel"):
            # unjudged documents count as not relevant today: the least they can give
            assert low == today < high
    # judge the rest of the pool (not relevant; judged documents keep their grade): the
    # bounds close on the value
    judged = {}
    for line in project.qrels.read_text().splitlines():
        q, _, d, g = line.split()
        judged[q, d] = g
    pooled = {
        (qid, docno): judged.get((qid, docno), "0")
        for lists in project.lists.values()
        for qid, docs in lists.items()
        for docno in docs[:5]
    }
    qrels = tmp_path / "rest.qrels"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in pooled.items()))
    assert main(["import", "qrels", str(project.db), str(qrels), "--name", "rest"]) == 0
    capsys.readouterr()
    unjudged, rows = bounds_table(capsys, project.db)
    assert unjudged == 0
    for key, (today, low, high, _proven) in rows.items():
        assert low == today == high, key


def test_bounds_need_a_project(capsys, tmp_path):
    assert main(["evaluate", "--bounds", "q.txt", "r.txt"]) != 0
    assert "--bounds goes with --db" in capsys.readouterr().err
