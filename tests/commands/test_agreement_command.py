"""`agreement DB`: the TSV the issue specifies (scope, statistic, value), csv, json and text,
on a simulated campaign, with values from the reference implementations."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from agreement_campaign import ASSESSORS, TOPICS, build_campaign
from agreement_reference import scope_reference
from sklearn.metrics import confusion_matrix

from judgeapp.cli import main
from judgeapp.services.rows import natural_key

ISSUE_NAMES = {
    "percent_agreement",
    "cohen_kappa",
    "cohen_kappa_linear",
    "cohen_kappa_quadratic",
    "fleiss_kappa",
    "krippendorff_alpha_nominal",
    "krippendorff_alpha_ordinal",
    "positive_agreement",
    "relevant_overlap",
    "documents",
}
EXTRA = {"krippendorff_alpha_interval", "krippendorff_alpha_ratio", "fleiss_documents"}
COHEN = {"cohen_kappa", "cohen_kappa_linear", "cohen_kappa_quadratic"}


def tsv(capsys, *args: str) -> dict[str, dict[str, str]]:
    assert main(["agreement", *args, "--format", "tsv"]) == 0
    out: dict[str, dict[str, str]] = {}
    for line in capsys.readouterr().out.splitlines():
        scope, statistic, value = line.split("\t")  # exactly three fields
        assert statistic not in out.get(scope, {}), line
        out.setdefault(scope, {})[statistic] = value
    return out


def grades_of(campaign, pair, topics=None):
    rows = []
    for (qid, _d), given in sorted(campaign.grades.items()):
        if all(a in given for a in pair) and (topics is None or qid in topics):
            rows.append([given[a] for a in pair])
    return np.array(rows, dtype=float)


def test_tsv_one_line_per_figure_for_two_assessors(project_db, capsys):
    campaign = build_campaign(project_db, overlap=0.5)
    pair = ("alice", "carol")
    lines = tsv(capsys, project_db, "--assessors", "alice,carol", "--relevant-from", "2")
    values = grades_of(campaign, pair)
    topics = sorted({q for (q, _d), g in campaign.grades.items() if all(a in g for a in pair)})
    assert list(lines) == ["all", *sorted(topics, key=natural_key), "pair:alice:carol"]
    plain = ISSUE_NAMES | EXTRA
    ranged = {s for s in plain if "documents" not in s}
    intervals = {f"{s}_low" for s in ranged} | {f"{s}_high" for s in ranged}
    assert set(lines["all"]) == plain | intervals
    reference = scope_reference(values, 2, 2)
    for name, expected in reference.items():
        assert float(lines["all"][name]) == pytest.approx(expected, abs=1e-9), name
    assert lines["all"]["documents"] == str(len(values))
    for name in ranged:
        low, high = float(lines["all"][f"{name}_low"]), float(lines["all"][f"{name}_high"])
        assert low <= high, name
    for qid in topics:
        assert set(lines[qid]) == plain
        expected = scope_reference(grades_of(campaign, pair, {qid}), 2, 2)["cohen_kappa_linear"]
        assert float(lines[qid]["cohen_kappa_linear"]) == pytest.approx(
            expected, abs=1e-9, nan_ok=True
        )


def test_three_assessors_no_overall_cohen_pairs_and_formats(project_db, capsys):
    campaign = build_campaign(project_db)
    lines = tsv(capsys, project_db, "--bootstrap", "0")
    assert not COHEN & set(lines["all"])  # Cohen's kappas only for exactly two assessors
    assert set(lines["all"]) == (ISSUE_NAMES - COHEN) | EXTRA  # no intervals asked for
    pairs = [s for s in lines if s.startswith("pair:")]
    assert pairs == ["pair:alice:bob", "pair:alice:carol", "pair:bob:carol"]
    assert COHEN <= set(lines["pair:bob:carol"])
    units = [
        [float(g.get(a, np.nan)) for a in ASSESSORS]
        for _k, g in sorted(campaign.grades.items())
        if len(g) > 1
    ]
    ref = scope_reference(np.array(units), 1, 2)
    for name in ("percent_agreement", "fleiss_kappa", "krippendorff_alpha_ordinal"):
        assert float(lines["all"][name]) == pytest.approx(ref[name], abs=1e-9)
    # csv: the same figures under a header
    assert main(["agreement", project_db, "--bootstrap", "0", "--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0] == ["scope", "statistic", "value"]
    assert {(s, k): v for s, k, v in rows[1:]} == {
        (s, k): v for s, figures in lines.items() for k, v in figures.items()
    }
    # json: everything, including the confusion matrices
    assert main(["agreement", project_db, "--format", "json", "--bootstrap", "20"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [a["name"] for a in data["assessors"]] == list(ASSESSORS)
    assert data["all"]["figures"]["fleiss_kappa"] == pytest.approx(ref["fleiss_kappa"], abs=1e-9)
    assert set(data["all"]["intervals"]) >= {"fleiss_kappa", "percent_agreement"}
    bob_carol = next(p for p in data["pairs"] if (p["first"], p["second"]) == ("bob", "carol"))
    both = grades_of(campaign, ("bob", "carol"))
    expected = confusion_matrix(both[:, 0], both[:, 1], labels=[0, 1, 2, 3]).tolist()
    assert bob_carol["confusion"] == expected
    # text: readable, with the confusion matrices
    assert main(["agreement", project_db, "--bootstrap", "20"]) == 0
    text = capsys.readouterr().out
    assert "Confusion matrix: bob (rows) x carol (columns)" in text
    block = text.split("Confusion matrix: bob (rows) x carol (columns)")[1].splitlines()
    assert [int(c) for c in block[2].split()] == [0, *expected[0]]
    assert "95% interval" in text and "Per topic" in text


def test_rankings_in_tsv(project_db, capsys, tmp_path):
    campaign = build_campaign(project_db, folder=tmp_path, topics=TOPICS[:10])
    lines = tsv(capsys, project_db, "--bootstrap", "0", "--rankings", "-m", "nDCG@10")
    scopes = [s for s in lines if s.startswith("rankings:")]
    assert "rankings:alice:combined" in scopes and "rankings:combined:alice" in scopes
    assert len(scopes) == 12  # three assessors and the combined judgments, both ways
    for scope in scopes:
        assert set(lines[scope]) == {"kendall_tau", "tau_ap", "topics"}
        tau = lines[scope]["kendall_tau"]
        assert tau == "nan" or -1 <= float(tau) <= 1
    # the combined judgments cover each assessor's topics
    for a in ASSESSORS:
        judged = {q for q, _d in campaign.of(a)}
        assert lines[f"rankings:{a}:combined"]["topics"] == str(len(judged))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--assessors", "alice,zed"], "no assessor or judgment source named 'zed'"),
        (["--assessors", "alice"], "two or more assessors"),
        (["--topics", "401", "402"], "judged no document in common on the chosen topics"),
        (["--topics", "999"], "no topic matches '999'"),
        (["--rankings"], "no runs to rank"),
        (["--policy", "loudest"], "unknown policy 'loudest'"),
    ],
)
def test_clear_errors(tmp_path, capsys, args, message):
    db = str(tmp_path / "p.db")
    build_campaign(db, topics=("401", "402", "403", "404", "405"))  # shared: 405 only
    capsys.readouterr()
    assert main(["agreement", db, *args]) == 2
    assert message in capsys.readouterr().err


def test_help_names_the_statistics_and_intervals(capsys):
    with pytest.raises(SystemExit):
        main(["agreement", "--help"])
    out = capsys.readouterr().out
    assert "scope<TAB>statistic<TAB>value" in out
    assert "<statistic>_low and <statistic>_high" in out
