"""The dashboard's live evaluation without Qt: numbers against trec_eval (pytrec_eval on
qrels exported from the store, and `main.py evaluate` on the same files), topic-by-topic
updates, undo, the judgment filter, ranking stability, progress, coverage, significance and
the table exports."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np
import pytest
from live_project import (
    SOURCE,
    evaluate_command_output,
    oracle_ap,
    oracle_t_marks,
    qrels_dict,
    read_run_dict,
    write_project,
)

from judgeapp.measures import DEFAULT_GUI_MEASURES
from judgeapp.services import dashboard_tables
from judgeapp.services.baseline import significance
from judgeapp.services.judging import JudgingService
from judgeapp.services.live_eval import (
    DashboardConfig,
    JudgmentFilter,
    LiveEvaluation,
    validate_measures,
)
from judgeapp.services.policy import qrels_rows
from judgeapp.services.pools import PoolService
from judgeapp.store import Store

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path):
    return write_project(tmp_path / "p")


@pytest.fixture
def store(project):
    with Store.open(project.db) as s:
        yield s


def ap_table(snapshot) -> dict[str, dict[str, float]]:
    i = [str(m) for m in snapshot.measures].index("AP")
    return {
        run: {q: float(snapshot.per_topic[i, r, t]) for t, q in enumerate(snapshot.qids)}
        for r, run in enumerate(snapshot.run_names)
    }


def means_of(snapshot, measure: str = "AP") -> dict[str, float]:
    i = [str(m) for m in snapshot.measures].index(measure)
    return {run: float(snapshot.means[i, r]) for r, run in enumerate(snapshot.run_names)}


def assert_matches_oracle(project, store, snapshot, assessors=None, level=1):
    qrels = qrels_dict(qrels_rows(store, assessors))
    per_topic, means = oracle_ap(project, qrels, level)
    assert set(snapshot.qids) == set(qrels)
    shown = ap_table(snapshot)
    for run in project.runs:
        for qid in qrels:
            # trec_eval -c: a topic the run lacks counts 0
            assert shown[run][qid] == pytest.approx(per_topic[run].get(qid, 0.0), abs=1e-12)
        assert means_of(snapshot)[run] == pytest.approx(means[run], abs=1e-12)


def test_initial_evaluation_is_trec_eval(project, store):
    live = LiveEvaluation(store)
    snap = live.snapshot()
    assert snap.run_names == tuple(project.runs)
    assert [str(m) for m in snap.measures] == list(DEFAULT_GUI_MEASURES)
    assert_matches_oracle(project, store, snap)


def test_fast_means_are_the_engines_summary_to_the_bit(project, store):
    from judgeapp.services.live_eval import _summary

    live = LiveEvaluation(store)
    JudgingService(store, "alice").record("4", project.lists["run3"]["4"][2], 1)
    live.update({"4"})
    results = live.evaluator.results()
    assert np.array_equal(_summary(results), results.summary())


def test_table_as_trec_eval_output_equals_the_evaluate_command(project, store, tmp_path):
    snap = LiveEvaluation(store).snapshot()
    expected = evaluate_command_output(project, store, tmp_path)
    assert dashboard_tables.to_trec_eval(snap) == expected


def test_a_judgment_recomputes_its_topic_as_trec_eval_does(project, store):
    live = LiveEvaluation(store)
    before = live.snapshot()
    alice = JudgingService(store, "alice")
    doc = project.lists["run2"]["4"][3]  # topic 4 has no relevant document yet
    alice.record("4", doc, 2)
    changed = live.update({"4"})
    after = live.snapshot()
    assert changed == {"4"} and after.changed_topics == {"4"}
    assert after.judgments == before.judgments + 1
    assert_matches_oracle(project, store, after)
    # exactly the runs that retrieved the document changed, and only on topic 4
    old, new = ap_table(before), ap_table(after)
    for run, lists in project.lists.items():
        assert (new[run]["4"] != old[run]["4"]) == (doc in lists.get("4", []))
        for qid in ("1", "2", "3"):
            assert new[run][qid] == old[run][qid]


def test_undo_restores_the_old_values_exactly(project, store):
    live = LiveEvaluation(store)
    before = live.snapshot()
    alice = JudgingService(store, "alice")
    change = alice.record("1", project.lists["run1"]["1"][0], 3)
    live.update({"1"})
    assert not np.array_equal(live.snapshot().means, before.means)
    alice.restore(change, undo=True)
    live.update({"1"})
    after = live.snapshot()
    assert np.array_equal(after.means, before.means)
    assert np.array_equal(after.per_topic, before.per_topic)
    assert after.judgments == 2  # the judgment and its undo both changed a grade


def test_unchanged_topic_costs_no_recompute_and_counts_nothing(project, store):
    live = LiveEvaluation(store)
    assert live.update({"2", "3"}) == frozenset()
    assert live.snapshot().judgments == 0


def test_topic_that_loses_its_last_judgment_leaves_the_evaluation(project, store):
    live = LiveEvaluation(store, DashboardConfig(judgments=JudgmentFilter(include_sources=False)))
    assert live.snapshot().qids == ()
    assert np.isnan(live.snapshot().means).all()
    alice = JudgingService(store, "alice")
    doc = project.lists["run3"]["2"][0]
    change = alice.record("2", doc, 1)
    live.update({"2"}, assessor="alice")  # a new assessor: every person includes her
    snap = live.snapshot()
    assert snap.qids == ("2",)
    assert_matches_oracle(project, store, snap, assessors=["alice"])
    alice.restore(change, undo=True)
    live.update({"2"})
    assert live.snapshot().qids == ()  # as trec_eval: a topic without judgments is not there


@pytest.mark.parametrize(
    ("filt", "assessors", "level"),
    [
        (JudgmentFilter(assessor="alice", include_sources=False), ["alice"], 1),
        (JudgmentFilter(assessor="alice", include_sources=True), ["alice", SOURCE], 1),
        (JudgmentFilter(assessor=SOURCE), [SOURCE], 1),
        (JudgmentFilter(relevance_level=2), None, 2),
    ],
)
def test_judgment_filter(project, store, filt, assessors, level):
    alice, bob = JudgingService(store, "alice"), JudgingService(store, "bob")
    alice.record("1", project.lists["run4"]["1"][0], 2)
    alice.record("4", project.lists["run4"]["4"][1], 1)
    # bob judges a document the source judged relevant as not relevant: with everyone
    # chosen the newest judgment (bob's) wins
    bob.record("1", project.lists["run5"]["1"][0], 0)
    snap = LiveEvaluation(store, DashboardConfig(judgments=filt)).snapshot()
    assert_matches_oracle(project, store, snap, assessors=assessors, level=level)


def test_every_table_measure_in_both_syntaxes(project, store):
    lines = ["map", "P.5,10", "ndcg_cut.20", "recip_rank", "nDCG@5", "num_rel_ret"]
    config = DashboardConfig(measures=tuple(lines))
    snap = LiveEvaluation(store, config).snapshot()
    assert [str(m) for m in snap.measures] == [
        "AP",
        "P@5",
        "P@10",
        "nDCG@20",
        "RR",
        "nDCG@5",
        "NumRelRet",
    ]
    import pytrec_eval

    qrels = qrels_dict(qrels_rows(store))
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"P.5,10", "ndcg_cut.5,20", "recip_rank"})
    for r, (name, path) in enumerate(project.runs.items()):
        scores = ev.evaluate(read_run_dict(path))
        for measure, key in (("P@5", "P_5"), ("nDCG@20", "ndcg_cut_20"), ("RR", "recip_rank")):
            i = [str(m) for m in snap.measures].index(measure)
            expected = sum(scores.get(q, {}).get(key, 0.0) for q in qrels) / len(qrels)
            assert snap.means[i, r] == pytest.approx(expected, abs=1e-12), (name, measure)


def test_validate_measures_reports_each_bad_line():
    measures, problems = validate_measures(
        ["AP", "", "# a comment", "P.5,10", "bogus@3", "P(rel=2)", "runid", "nDCG@10", "AP"]
    )
    assert [str(m) for m in measures] == ["AP", "P@5", "P@10", "nDCG@10"]
    assert [(p.line, p.text) for p in problems] == [(5, "bogus@3"), (6, "P(rel=2)"), (7, "runid")]
    assert "needs a cutoff" in problems[1].message
    assert "text" in problems[2].message


def iprec_10(ranked: list[str], judged: dict[str, int], level: float) -> float:
    """trec_eval 10.0's iprec_at_recall, from its definition in measures.md: the level
    becomes c = lround(level * R) relevant documents; the value is the highest precision
    at or after the rank of the c-th relevant document (0 if fewer were retrieved)."""
    rel = [judged.get(d, 0) >= 1 for d in ranked]
    big_r = sum(g >= 1 for g in judged.values())
    c = math.floor(level * big_r + 0.5)
    found, start = 0, 0 if c == 0 else None
    for i, is_rel in enumerate(rel):
        found += is_rel
        if start is None and found == c:
            start = i
    if start is None or not ranked:
        return 0.0
    hits = np.cumsum(rel)
    precision = hits / np.arange(1, len(rel) + 1)
    return float(precision[start:].max())


def test_plot_series_are_trec_eval_measures(project, store):
    import pytrec_eval

    snap = LiveEvaluation(store).snapshot()
    qrels = qrels_dict(qrels_rows(store))
    levels = np.linspace(0, 1, 11)
    for r, run in enumerate(snap.run_names):
        for t, qid in enumerate(snap.qids):
            ranked = project.lists[run].get(qid, [])
            want = [iprec_10(ranked, qrels[qid], x) for x in levels]
            assert snap.iprec[r, t] == pytest.approx(want, abs=1e-12), (run, qid)
        mean = snap.iprec[r].sum(axis=0) / len(snap.qids)
        assert snap.iprec_mean[r] == pytest.approx(mean, abs=1e-12)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10,100"})
    k100 = snap.ndcg_cutoffs.index(100)
    for r, path in enumerate(project.runs.values()):
        scores = ev.evaluate(read_run_dict(path))
        want100 = sum(scores.get(q, {}).get("ndcg_cut_100", 0.0) for q in qrels) / len(qrels)
        assert snap.ndcg_mean[r, k100] == pytest.approx(want100, abs=1e-12)


def test_progress_curve_follows_judgments_and_undo(project, store):
    live = LiveEvaluation(store, pool=None)
    alice = JudgingService(store, "alice")
    docs = project.lists["run5"]["3"][:6]
    grades = [2, 0, 1, 0, 3, 1]
    changes = [alice.record("3", d, g) for d, g in zip(docs, grades, strict=True)]
    alice.restore(changes[1], undo=True)  # the second document is unjudged again
    alice.record("3", docs[2], 0)  # and the third re-graded: not relevant any more
    live.update({"3"}, assessor="alice")
    curve = live.snapshot("3").progress
    assert curve.qid == "3"
    # judged in order 1, 3, 4, 5, 6 with current grades 2, 0, 0, 3, 1
    assert curve.relevant.tolist() == [1, 1, 1, 2, 3]
    assert curve.pool_size is None
    assert live.snapshot().progress.qid == "3"  # the newest judgment's topic by default


def test_progress_kept_up_to_date_equals_progress_from_history(project, store):
    live = LiveEvaluation(store)
    alice = JudgingService(store, "alice")
    docs = project.lists["run4"]["2"][:8]
    alice.record("2", docs[0], 1)
    live.update({"2"}, assessor="alice")
    assert live.snapshot("2").progress.relevant.tolist() == [1]  # read from the history
    changes = []
    for doc, grade in zip(docs[1:], [0, 2, 0, 1, 3, 0], strict=False):
        changes.append(alice.record("2", doc, grade))
        live.update({"2"}, assessor="alice")  # kept up to date, judgment by judgment
    alice.restore(changes[2], undo=True)
    live.update({"2"}, assessor="alice")
    alice.record("2", docs[1], 2)  # re-graded: relevant now
    live.update({"2"}, assessor="alice")
    alice.record("2", docs[3], 1)  # judged again after its undo: counts from now
    live.update({"2"}, assessor="alice")
    kept = live.snapshot("2").progress.relevant.tolist()
    fresh = LiveEvaluation(store).progress("2").relevant.tolist()
    assert kept == fresh == [1, 2, 3, 4, 5, 5, 6]  # d0 d1 d2 d4 d5 d6, then d3


def test_progress_knows_the_pool_size(project, store):
    PoolService(store).create_pool(
        "p", runs=list(project.runs), strategy="depth", params={"depth": 5}
    )
    live = LiveEvaluation(store, pool="p")
    expected = len({d for lists in project.lists.values() for d in lists.get("2", [])[:5]})
    assert live.progress("2").pool_size == expected


def test_coverage_warnings_name_the_poorly_judged_runs(project, store):
    config = DashboardConfig(judged_k=5, judged_threshold=0.5)
    snap = LiveEvaluation(store, config).snapshot()
    qrels = qrels_dict(qrels_rows(store))
    expected = {}
    for run, lists in project.lists.items():
        fractions = [
            sum(d in qrels[q] for d in lists[q][:5]) / 5 if q in lists else 0.0 for q in qrels
        ]
        expected[run] = sum(fractions) / len(fractions)
    assert snap.judged_at_k == pytest.approx([expected[r] for r in snap.run_names], abs=1e-12)
    warned = [w.run for w in snap.warnings if w.kind == "coverage" and w.run is not None]
    assert set(warned) == {r for r, v in expected.items() if v < 0.5}
    assert warned == sorted(warned, key=expected.get)  # worst first
    assert snap.warnings[0].text.startswith(f"{len(warned)} of {len(expected)} runs")


def _ranking_means(project, qrels) -> list[float]:
    _per_topic, means = oracle_ap(project, qrels)
    return [means[r] for r in project.runs]


def test_ranking_stability_from_history_and_live(project, store):
    from scipy.stats import kendalltau

    config = DashboardConfig(checkpoint_every=4, settle_window=8)
    alice = JudgingService(store, "alice")
    judged = set(qrels_dict(qrels_rows(store))["1"]) | set(qrels_dict(qrels_rows(store))["2"])
    # ten documents nobody judged yet, so each judgment changes an effective grade
    plan = [
        (qid, doc)
        for qid in ("1", "2")
        for doc in dict.fromkeys(project.lists["run3"][qid][10:] + project.lists["run1"][qid])
        if doc not in judged
    ][:10]
    grades = [2, 0, 1, 1, 0, 2, 1, 0, 2, 1]
    states = {0: qrels_dict(qrels_rows(store))}
    for n, ((qid, doc), grade) in enumerate(zip(plan[:6], grades, strict=False), 1):
        alice.record(qid, doc, grade)
        states[n] = qrels_dict(qrels_rows(store))
    live = LiveEvaluation(store, config)  # replays the history
    assert [cp.judgments for cp in live.checkpoints] == [0, 4, 6]
    for n, ((qid, doc), grade) in enumerate(zip(plan[6:], grades[6:], strict=True), 7):
        alice.record(qid, doc, grade)
        live.update({qid})
        states[n] = qrels_dict(qrels_rows(store))
    assert [cp.judgments for cp in live.checkpoints] == [0, 4, 6, 8]
    stability = live.snapshot().stability
    assert stability.judgments == 10
    now = _ranking_means(project, states[10])
    assert [p[0] for p in stability.points] == [0, 4, 6, 8]
    for when, tau in stability.points:
        then = _ranking_means(project, states[when])
        assert tau == pytest.approx(kendalltau(now, then).statistic, abs=1e-12), when
    assert stability.reference == stability.points[0]  # the newest at least 8 judgments old
    assert stability.settled == (stability.points[0][1] >= 0.9)
    # a new evaluation replays the same history
    again = LiveEvaluation(store, config)
    assert [cp.judgments for cp in again.checkpoints] == [0, 4, 8, 10]
    for cp in again.checkpoints:
        assert cp.means == pytest.approx(_ranking_means(project, states[cp.judgments]), abs=1e-12)


def test_significance_marks_match_an_independent_t_test(project, store):
    alice = JudgingService(store, "alice")
    for qid in ("1", "2", "3", "4"):
        for doc in project.lists["run5"][qid][:4]:
            alice.record(qid, doc, 1)
    snap = LiveEvaluation(store).snapshot()
    baseline = "run1"
    sig = significance(snap, baseline, test="t", correction="holm")
    qrels = qrels_dict(qrels_rows(store))
    per_topic, _ = oracle_ap(project, qrels)
    expected = oracle_t_marks(per_topic, baseline, list(qrels))
    i = 0  # AP
    for r, run in enumerate(snap.run_names):
        if run == baseline:
            assert sig.sign[i, r] == 0 and "baseline" in sig.describe(i, r)
            continue
        p, mark = expected[run]
        assert sig.p[i, r] == pytest.approx(p, rel=1e-9)
        assert sig.sign[i, r] == mark
        assert f"p = {sig.p[i, r]:.4g}" in sig.describe(i, r)
    assert (sig.sign[i] != 0).any()  # the setup makes run5 significantly better


def test_randomization_test_is_seeded_and_reported(project, store):
    snap = LiveEvaluation(store).snapshot()
    a = significance(snap, "run2", test="rand", permutations=2000, seed=3)
    b = significance(snap, "run2", test="rand", permutations=2000, seed=3)
    assert np.array_equal(a.p, b.p)
    # with 4 topics there are only 16 sign patterns: p can never go below 1/8
    others = [r for r, n in enumerate(snap.run_names) if n != "run2"]
    assert (a.p_raw[0, others] >= 0.125 - 0.05).all()
    assert "2000 sign flips" in a.describe(0, others[0])


def test_table_exports(project, store):
    alice = JudgingService(store, "alice")
    for qid in ("1", "2", "3", "4"):
        for doc in project.lists["run5"][qid][:4]:
            alice.record(qid, doc, 1)
    snap = LiveEvaluation(store).snapshot()
    sig = significance(snap, "run1")
    rows = list(csv.reader(io.StringIO(dashboard_tables.to_csv(snap, sig))))
    assert rows[0] == ["run", *DEFAULT_GUI_MEASURES] + [f"p({m})" for m in DEFAULT_GUI_MEASURES] + [
        f"ci95_{end}({m})" for m in DEFAULT_GUI_MEASURES for end in ("low", "high")
    ]
    for r, row in enumerate(rows[1:]):
        assert row[0] == snap.run_names[r]
        assert [float(x) for x in row[1:8]] == pytest.approx(snap.means[:, r], abs=5e-7)
    md = dashboard_tables.to_markdown(snap, sig)
    lines = md.splitlines()
    assert lines[0] == "| Run | " + " | ".join(DEFAULT_GUI_MEASURES) + " |"
    best = int(np.argmax(snap.means[0]))
    assert f"**{snap.means[0, best]:.4f}**" in lines[2 + best]
    marked = [(i, r) for i in range(7) for r in range(6) if sig.sign[i, r]]
    assert marked and all(("▲" if sig.sign[i, r] > 0 else "▼") in lines[2 + r] for i, r in marked)
    tex = dashboard_tables.to_latex(snap, sig)
    assert "\\toprule" in tex and "\\bottomrule" in tex
    assert tex.count("\\\\\n") == 1 + len(snap.run_names)
    assert dashboard_tables.latex_escape("bm25_a&b%") == "bm25\\_a\\&b\\%"


def test_each_mean_has_its_95_percent_interval_in_the_exports(project, store):
    """The interval of each mean is Student's t over the per-topic values: checked with
    scipy's t interval on trec_eval's per-topic AP (pytrec_eval), every topic of the
    judgments counting (a run without one scores 0 there, trec_eval -c)."""
    from scipy import stats

    snap = LiveEvaluation(store).snapshot()
    per_topic, _means = oracle_ap(project, qrels_dict(qrels_rows(store)))
    qids = sorted(snap.qids)
    low, high = dashboard_tables.mean_intervals(snap)
    rows = list(csv.reader(io.StringIO(dashboard_tables.to_csv(snap))))
    header = rows[0]
    for r, run in enumerate(snap.run_names):
        values = [per_topic[run].get(q, 0.0) for q in qids]
        expected = stats.t.interval(
            0.95, len(values) - 1, loc=np.mean(values), scale=stats.sem(values)
        )
        assert (low[0, r], high[0, r]) == pytest.approx(expected, abs=1e-9)
        row = rows[1 + r]
        assert float(row[header.index("ci95_low(AP)")]) == pytest.approx(expected[0], abs=1e-6)
        assert float(row[header.index("ci95_high(AP)")]) == pytest.approx(expected[1], abs=1e-6)
    half = (high[0, 0] - low[0, 0]) / 2
    assert f"± {half:.4f}" in dashboard_tables.to_markdown(snap).splitlines()[2]
    assert f"$\\pm$ {half:.4f}" in dashboard_tables.to_latex(snap)


def test_judgments_made_counts_the_judgments_people_hold(project, store):
    """Judged, regraded, undone: the count is the judgments there are, not the changes."""
    live = LiveEvaluation(store)
    assert live.snapshot().made == 0  # imported qrels are not judgments made
    alice = JudgingService(store, "alice")
    docs = project.lists["run2"]["4"][:3]
    changes = [alice.record("4", d, 1) for d in docs]
    live.update({"4"}, "alice")  # a new assessor: the evaluation takes them in
    assert live.snapshot().made == 3
    alice.record("4", docs[0], 2)  # a new grade for the same document
    live.update({"4"})
    assert live.snapshot().made == 3
    alice.restore(changes[2], undo=True)
    live.update({"4"})
    assert live.snapshot().made == 2
    assert LiveEvaluation(store).snapshot().made == 2  # and so from the store afresh


def test_empty_project_gives_no_numbers(tmp_path):
    with Store.open(tmp_path / "empty.db") as store:
        snap = LiveEvaluation(store).snapshot()
    assert snap.run_names == () and snap.qids == ()
    assert snap.means.shape == (len(DEFAULT_GUI_MEASURES), 0)
    assert snap.stability is None and snap.progress is None
