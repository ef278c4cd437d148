"""Measure objects and the two syntaxes (ir_measures and trec_eval -m)."""

from __future__ import annotations

import pytest

from judgeapp.measures import AP, FAMILIES, Measure, MeasureError, P, nDCG, parse_measure
from judgeapp.measures.parse import parse_measures
from judgeapp.measures.registry import trec_specs

CANONICAL = [
    "AP",
    "AP@10",
    "P@10",
    "P(rel=2)@5",
    "R@100",
    "RR",
    "RR@10",
    "Rprec",
    "Bpref",
    "infAP",
    "Judged@10",
    "SetF(beta=0.5)",
    "SetP(relative=True)",
    "SetR",
    "SetAP",
    "IPrec@0.3",
    "nDCG",
    "nDCG@10",
    "nDCG(dcg='exp-log2')@10",
    "nDCG(dcg='jk')@5",
    "nDCG(gains={1:3,2:9,4:4.5})",
    "DCG(dcg='jk')@3",
    "NumQ",
    "NumRet",
    "NumRel(rel=2)",
    "NumRelRet",
    "gm_map",
    "gm_bpref",
    "Rprec_mult@0.2",
    "utility(coeffs=(2,-1,0,0))",
    "11pt_avg(levels=(0.25,0.5,0.75))",
    "AP_11pt",
    "binG",
    "G(gains={1:2})",
    "ndcg_rel",
    "Rndcg",
    "relative_P@5",
    "Success@5",
    "F(beta=0.5)@10",
    "Fallout(N=1000)",
    "Acc(N=1000)@5",
    "rbp(p=0.8)",
    "rbp_resid",
    "unj@5",
    "relstring@20",
    "num_nonrel_judged_ret",
    "AP(judged_only=True)",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_text_round_trips(text):
    measure = parse_measure(text)
    assert str(measure) == text
    assert parse_measure(str(measure)) == measure
    assert hash(parse_measure(text)) == hash(measure)


def test_every_family_has_a_description_and_aggregate():
    for name, family in FAMILIES.items():
        assert family.description, name
        assert family.aggregate in ("mean", "gmean", "sum", "count", "text")
    assert parse_measure("NumRet").is_count and parse_measure("NumRet").aggregate == "sum"
    assert parse_measure("gm_map").aggregate == "gmean"
    assert parse_measure("AP").aggregate == "mean" and not parse_measure("AP").is_count


def test_python_construction_like_ir_measures():
    assert P @ 10 == parse_measure("P@10")
    assert P(rel=2) @ 5 == parse_measure("P(rel=2)@5")
    assert nDCG(dcg="exp-log2") @ 10 == parse_measure("nDCG(dcg='exp-log2')@10")
    assert AP["rel"] is None and (AP(rel=3))["rel"] == 3
    # defaults written out are the same measure
    assert parse_measure("nDCG(dcg='log2')@10") == parse_measure("nDCG@10")
    assert str(parse_measure("P(rel=1)@10")) == "P(rel=1)@10"  # explicit rel is kept


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("MAP", "AP"),
        ("NDCG@10", "nDCG@10"),
        ("MRR", "RR"),
        ("BPref", "Bpref"),
        ("bpref", "Bpref"),
        ("SetRelP", "SetP(relative=True)"),
        ("NumRet(rel=1)", "NumRelRet(rel=1)"),
        ("Precision@5", "P@5"),
        ("Recall@5", "R@5"),
        ("NumRet(rel=1)@10", "NumRelRet(rel=1)@10"),
    ],
)
def test_ir_measures_aliases(alias, canonical):
    assert str(parse_measure(alias)) == canonical


def test_accuracy_is_ir_measures_and_acc_the_lecture_notes():
    """`Accuracy` is ir_measures' pairwise accuracy (issue 16); the lecture notes'
    (TP+TN)/N accuracy keeps its own name, Acc, and its collection-size parameter."""
    assert parse_measure("Accuracy@10").family == "Accuracy"
    assert parse_measure("Accuracy(rel=2)").family == "Accuracy"
    with pytest.raises(MeasureError, match="no parameter 'N'"):
        parse_measure("Accuracy(N=10)")
    assert str(parse_measure("Acc(N=10)")) == "Acc(N=10)"


@pytest.mark.parametrize(
    ("trec", "canonical", "label"),
    [
        ("map", "AP", "map"),
        ("P_10", "P@10", "P_10"),
        ("ndcg_cut_20", "nDCG@20", "ndcg_cut_20"),
        ("map_cut_5", "AP@5", "map_cut_5"),
        ("iprec_at_recall_0.10", "IPrec@0.1", "iprec_at_recall_0.10"),
        ("recip_rank", "RR", "recip_rank"),
        ("set_F.0.5", "SetF(beta=0.5)", "set_F_0.5"),
        ("success.1", "Success@1", "success_1"),
        ("recall.7", "R@7", "recall_7"),
    ],
)
def test_trec_names_and_syntax(trec, canonical, label):
    measure = parse_measure(trec)
    assert str(measure) == canonical
    assert measure.label == label and measure.name == label


def test_trec_order_not_command_order():
    """trec_eval prints in its measure table's order, whatever the -m order."""
    names = [m.name for m in parse_measures(["P.5", "map", "num_q", "runid"])]
    assert names == ["runid", "num_q", "map", "P_5"]


def test_trec_params_first_wins_sorted_atol():
    """The first parameters given for a measure win; cutoffs are read like C atol and
    sorted; the printed name keeps the text of double parameters."""
    assert [m.name for m in parse_measures(["P.10,5", "P.20"])] == ["P_5", "P_10"]
    assert [m.name for m in parse_measures(["ndcg_cut.10,20,23.4"])] == [
        "ndcg_cut_10",
        "ndcg_cut_20",
        "ndcg_cut_23",
    ]
    assert [m.name for m in parse_measures(["Rprec_mult.5.0,0.2"])] == [
        "Rprec_mult_0.20",
        "Rprec_mult_5.00",
    ]
    utility = parse_measures(["utility.2,-1,0,0"])[0]
    assert utility.name == "utility_2,-1,0,0" and utility["coeffs"] == (2.0, -1.0, 0.0, 0.0)
    relstring = parse_measures(["relstring.20"])[0]
    assert relstring.name == "relstring_20" and relstring.at == 20
    ndcg = parse_measures(["ndcg.1=3,2=9,4=4.5"])[0]
    assert ndcg.name == "ndcg_1=3,2=9,4=4.5" and ndcg["gains"] == ((1, 3.0), (2, 9.0), (4, 4.5))
    assert parse_measures(["iprec_at_recall..10,.20"])[0].name == "iprec_at_recall_0.10"


def test_nicknames():
    official = [m.name for m in parse_measures(["official"])]
    assert official[:10] == (
        "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank".split()
    )
    assert official[-1] == "P_1000" and len(official) == 30
    all_10 = {m.name for m in parse_measures(["all_trec"], 10)}
    all_9 = {m.name for m in parse_measures(["all_trec"], 9)}
    assert all_10 - all_9 == {"rbp", "rbp_resid", "unj_5", "unj_10", "unj_20"}
    assert "relstring" in all_10 and "dcg" not in all_10
    assert [m.name for m in parse_measures(["set"])][-1] == "set_F"


def test_every_trec_measure_is_known():
    for spec in trec_specs():
        measures = parse_measures([spec.name], 10)
        assert measures and all(m.info for m in measures)


def test_mixed_syntaxes_trec_first_then_ir_in_order():
    names = [m.name for m in parse_measures(["nDCG@10", "P.5", "AP", "map"])]
    assert names == ["map", "P_5", "nDCG@10"]  # AP equals map: listed once


def test_measure_is_immutable_and_validated():
    m = parse_measure("P@10")
    with pytest.raises(AttributeError):
        m.at = 5
    with pytest.raises(ValueError, match="no parameter"):
        Measure("P", 10, {"alpha": 1})
    with pytest.raises(ValueError, match="unknown measure"):
        Measure("nope")
    with pytest.raises(MeasureError, match="names 30 measures"):
        parse_measure("official")
