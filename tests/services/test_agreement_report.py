"""Agreement of a project's assessors: a simulated campaign (3 assessors, 20 topics, 20%
overlap, grades drawn from known confusion models) read back from the store on SQLite and
PostgreSQL, every figure equal to the reference implementations; the ranking comparison
against trec_eval's AP (pytrec_eval) on the same judgments."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from agreement_campaign import ASSESSORS, SOURCE, TOPICS, build_campaign
from agreement_reference import pair_reference, scope_reference
from scipy.stats import kendalltau
from sklearn.metrics import cohen_kappa_score

from judgeapp.services.agreement import (
    COMBINED,
    AgreementError,
    agreement_report,
    compare_rankings,
)
from judgeapp.services.rows import natural_key
from judgeapp.statistics.agreement import tau_ap
from judgeapp.store import Store


def units(campaign, assessors, topics=None):
    """{qid: units x raters grades} of the documents two or more of `assessors` graded,
    from the campaign's own record (not the store)."""
    out: dict[str, list[list[float]]] = {}
    for (qid, _docno), given in sorted(campaign.grades.items()):
        if topics is not None and qid not in topics:
            continue
        row = [float(given.get(a, np.nan)) for a in assessors]
        if sum(not np.isnan(v) for v in row) >= 2:
            out.setdefault(qid, []).append(row)
    return {q: np.array(rows) for q, rows in out.items()}


def fleiss_raters(values: np.ndarray) -> int:
    counts = np.bincount((~np.isnan(values)).sum(axis=1))
    return int(len(counts) - 1 - np.argmax(counts[::-1]))


def assert_figures(ours: dict[str, float], ref: dict[str, float], where: str) -> None:
    assert set(ours) == set(ref), where
    for name, value in ref.items():
        assert ours[name] == pytest.approx(value, abs=1e-9, nan_ok=True), (where, name)


def test_simulated_campaign_every_figure_equals_the_reference_implementations(project_db):
    campaign = build_campaign(project_db)
    with Store.open(project_db) as store:
        report = agreement_report(store, bootstrap=0, relevant_from=2)
    assert report.assessors == ASSESSORS
    assert report.kinds == dict.fromkeys(ASSESSORS, "person")
    assert report.grades == (0, 1, 2, 3)
    by_topic = units(campaign, ASSESSORS)
    shared = [q for q, who in campaign.assigned.items() if len(who) > 1]
    assert len(shared) == 4  # 20% of 20 topics
    assert list(report.topics) == sorted(shared, key=natural_key)
    everything = np.concatenate(list(by_topic.values()))
    assert 2 < report.fleiss_raters + 1 and report.fleiss_raters == fleiss_raters(everything)
    assert (~np.isnan(everything)).sum(axis=1).max() == 3  # some documents have three grades
    n = report.fleiss_raters
    assert_figures(report.overall, scope_reference(everything, 2, n), "all")
    for qid in report.topics:
        assert_figures(report.per_topic[qid], scope_reference(by_topic[qid], 2, n), qid)
    # each pair on the documents both judged
    assert [(p.first, p.second) for p in report.pairs] == [
        ("alice", "bob"),
        ("alice", "carol"),
        ("bob", "carol"),
    ]
    for p in report.pairs:
        r, s = ASSESSORS.index(p.first), ASSESSORS.index(p.second)
        both = everything[~np.isnan(everything[:, r]) & ~np.isnan(everything[:, s])]
        figures, confusion = pair_reference(both[:, r], both[:, s], 2)
        assert_figures(p.figures, figures, f"{p.first}/{p.second}")
        assert p.confusion.tolist() == confusion.tolist()


def test_two_assessors_get_cohen_kappa_overall_and_seeded_bootstrap_intervals(project_db):
    campaign = build_campaign(project_db, seed=5, overlap=0.6)
    pair = ("bob", "carol")
    with Store.open(project_db) as store:
        report = agreement_report(store, list(pair), bootstrap=300, seed=4)
        again = agreement_report(store, list(pair), bootstrap=300, seed=4)
        other = agreement_report(store, list(pair), bootstrap=300, seed=5)
    by_topic = units(campaign, pair)
    everything = np.concatenate(list(by_topic.values()))
    assert len(by_topic) >= 4
    assert_figures(report.overall, scope_reference(everything, 1, 2), "all")
    assert "cohen_kappa_quadratic" in report.overall
    assert report.intervals == again.intervals and report.intervals != other.intervals
    # the intervals: topics drawn with replacement as the docstring says, each draw scored
    # by the reference implementation, percentiles 2.5 and 97.5
    topics = list(report.topics)
    draws = np.random.default_rng(4).integers(0, len(topics), size=(300, len(topics)))
    kappa, alpha = [], []
    for draw in draws:
        values = np.concatenate([by_topic[topics[t]] for t in draw])
        kappa.append(cohen_kappa_score(*values.T, labels=[0, 1, 2, 3], weights="linear"))
        alpha.append(krippendorff.alpha(values.T, level_of_measurement="ordinal"))
    assert report.intervals["cohen_kappa_linear"] == pytest.approx(
        tuple(np.percentile(kappa, [2.5, 97.5])), abs=1e-9
    )
    assert report.intervals["krippendorff_alpha_ordinal"] == pytest.approx(
        tuple(np.percentile(alpha, [2.5, 97.5])), abs=1e-9
    )
    assert "documents" not in report.intervals
    # with two assessors the pair is the whole: same figures, same intervals
    (only,) = report.pairs
    for name, value in only.figures.items():
        assert value == pytest.approx(report.overall[name], abs=1e-12)
        if name != "documents":
            assert only.intervals[name] == pytest.approx(report.intervals[name], abs=1e-12)


def test_topics_restrict_the_units(project_db):
    campaign = build_campaign(project_db)
    shared = sorted((q for q, who in campaign.assigned.items() if len(who) > 1), key=natural_key)
    single = next(q for q, who in campaign.assigned.items() if len(who) == 1)
    chosen = [*shared[:2], single]  # one assessor on `single`: no units there
    with Store.open(project_db) as store:
        report = agreement_report(store, topics=chosen, bootstrap=0)
    by_topic = units(campaign, ASSESSORS, chosen)
    assert list(report.topics) == shared[:2]
    everything = np.concatenate(list(by_topic.values()))
    assert_figures(
        report.overall, scope_reference(everything, 1, report.fleiss_raters), "chosen topics"
    )


def test_one_shared_topic_gives_no_interval_rather_than_the_value_twice(project_db):
    """Issue 30, item 10: the bootstrap resamples topics; with one shared topic every draw
    is that topic, and the "interval" was the value itself."""
    campaign = build_campaign(project_db)
    shared = sorted((q for q, who in campaign.assigned.items() if len(who) > 1), key=natural_key)
    with Store.open(project_db) as store:
        one = agreement_report(store, topics=shared[:1], bootstrap=200)
        two = agreement_report(store, topics=shared[:2], bootstrap=200)
    assert list(one.topics) == shared[:1]
    assert one.intervals == {} and all(p.intervals == {} for p in one.pairs)
    assert one.intervals_note().startswith("no intervals")
    assert two.intervals and two.intervals_note().startswith("95% bootstrap over topics")


def test_clear_errors(project_db):
    campaign = build_campaign(project_db, topics=TOPICS[:5])
    single = [q for q, who in campaign.assigned.items() if len(who) == 1]
    with Store.open(project_db) as store:
        with pytest.raises(AgreementError, match=r"no assessor .* named 'zed'.*alice, bob, carol"):
            agreement_report(store, ["alice", "zed"])
        with pytest.raises(AgreementError, match="two or more assessors"):
            agreement_report(store, ["alice"])
        with pytest.raises(AgreementError, match="named twice"):
            agreement_report(store, ["alice", "alice"])
        with pytest.raises(AgreementError, match="judged no document in common on the chosen"):
            agreement_report(store, topics=single)
        with pytest.raises(AgreementError, match="illegal measure"):
            agreement_report(store, rankings="NoSuchMeasure@3")
        with pytest.raises(AgreementError, match="no runs"):
            agreement_report(store, rankings="AP")


def oracle_means(campaign, judgments: dict[tuple[str, str], int], topics, level: int) -> dict:
    """trec_eval's mean AP (pytrec_eval) of every run over `topics`, a missing topic as 0."""
    import pytrec_eval

    qrels: dict[str, dict[str, int]] = {}
    for (qid, docno), grade in judgments.items():
        if qid in topics:
            qrels.setdefault(qid, {})[docno] = int(grade >= level)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map"})
    means = {}
    for name, path in campaign.runs.items():
        run: dict[str, dict[str, float]] = {}
        for line in path.read_text().splitlines():
            qid, _q0, doc, _rank, score, _tag = line.split()
            run.setdefault(qid, {})[doc] = float(score)
        scores = evaluator.evaluate(run)
        means[name] = sum(scores.get(q, {}).get("map", 0.0) for q in qrels) / len(qrels)
    return means


def test_rankings_under_each_assessor_equal_trec_eval_and_scipy(project_db, tmp_path):
    campaign = build_campaign(project_db, folder=tmp_path, source=True)
    names = [*ASSESSORS, SOURCE]
    with Store.open(project_db) as store:
        comparison = compare_rankings(store, names, measure="AP", relevant_from=2)
    assert comparison.measure == "AP" and comparison.policy == "newest"
    assert comparison.runs == tuple(campaign.runs)
    assert [(s.name, s.kind) for s in comparison.sets] == [
        *((a, "person") for a in ASSESSORS),
        (SOURCE, "source"),
        (COMBINED, COMBINED),
    ]
    # the source was imported last, over every document: the newest judgment everywhere
    judgments = {a: campaign.of(a) for a in ASSESSORS}
    judgments[SOURCE] = judgments[COMBINED] = campaign.truth
    topics = {name: {q for q, _d in j} for name, j in judgments.items()}
    assert len(comparison.pairs) == 2 * 10  # 5 sets: 10 pairs, both ways
    runs = list(comparison.runs)
    for pair in comparison.pairs:
        shared = topics[pair.reference] & topics[pair.other]
        assert set(pair.topics) == shared, (pair.reference, pair.other)
        ref = oracle_means(campaign, judgments[pair.reference], shared, 2)
        other = oracle_means(campaign, judgments[pair.other], shared, 2)
        ref_scores, other_scores = [ref[r] for r in runs], [other[r] for r in runs]
        assert pair.reference_scores.tolist() == pytest.approx(ref_scores, abs=1e-9)
        assert pair.other_scores.tolist() == pytest.approx(other_scores, abs=1e-9)
        expected_tau = kendalltau(ref_scores, other_scores).statistic
        assert pair.kendall_tau == pytest.approx(expected_tau, abs=1e-12, nan_ok=True)
        assert pair.tau_ap == pytest.approx(tau_ap(ref_scores, other_scores, runs), abs=1e-12)
    # through the report: the chosen measure and the same comparison
    with Store.open(project_db) as store:
        report = agreement_report(store, names, bootstrap=0, rankings="P@5")
    assert report.rankings is not None and report.rankings.measure == "P@5"
    assert len(report.rankings.pairs) == 20
