"""The orders of issue 17 that beat MaxMean: `cal` (learns from the documents' text) on
small hand-made pools and on CISI with the demo's runs, and `maxmean-shared` and
`ridge-fusion` on Robust 2003 (their tuning topics and held-out ones)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from judgeapp.pooling.order import make_order
from judgeapp.pooling.pools import depth_pool
from judgeapp.pooling.simulate import needed_table, simulate
from judgeapp.pooling.text_order import TextOrder
from tests.pooling.judging import depth_pools, judge_all

ROOT = Path(__file__).resolve().parents[2]

# two subjects; the statement asks for the first; run A ranks it first, run B the other
TEXTS = {
    1: "wing flutter at supersonic speed",
    2: "flutter of a swept wing in supersonic flow",
    3: "heat transfer in a laminar boundary layer",
    4: "boundary layer heat transfer with suction",
    5: "supersonic flutter of panels and wings",
    6: "laminar heat transfer near a stagnation point",
    7: "transonic wing flutter tests",
    8: "turbulent boundary layer heat transfer",
}
QUERY = "supersonic wing flutter"
LISTS = {"A": np.array([3, 1, 4, 2, 6]), "B": np.array([8, 7, 6, 5, 4, 3])}


def cal(**kw) -> TextOrder:
    topic = depth_pool("1", list(LISTS), list(LISTS.values()), 100)
    order = make_order("cal", topic, LISTS, texts=TEXTS, query=QUERY, **kw)
    assert isinstance(order, TextOrder)
    return order


def test_cal_judges_every_pooled_document_once_the_same_way_each_time():
    flutter = {1, 2, 5, 7}
    first = judge_all(cal(), flutter)
    assert sorted(first) == list(range(1, 9))
    assert judge_all(cal(), flutter) == first
    # the text finds the flutter documents first; the runs alone put them last
    # (test_cal_without_text_is_the_fusion_ranking)
    assert set(first[:4]) == flutter


def test_cal_learns_from_each_judgment_as_it_arrives():
    # one heat-transfer document judged either way changes what comes next
    a, b = cal(), cal()
    assert a.next_doc() == b.next_doc() == 1  # flutter, as the statement asks
    a.record(3, 1, True)
    b.record(3, 0, False)
    assert a.model is not None and a.model.learned == 0  # fitted when asked for the next
    assert a.next_doc() == 4  # heat transfer in a boundary layer, as 3
    assert b.next_doc() == 1
    assert a.model.learned == 1 and b.model is not None and b.model.learned == 1
    assert a.upcoming(7) == [4, 1, 8, 6, 2, 7, 5]  # the other heat-transfer documents rose
    assert b.upcoming(7) == [1, 2, 7, 5, 6, 4, 8]


def test_cal_refits_in_batches_that_grow_with_the_judgments():
    order = cal()
    fits = []
    while (doc := order.next_doc()) is not None:
        fits.append(order.model.learned)
        order.record(doc, int(doc in {1, 2}), doc in {1, 2})
    # a fit at 0, 1, 2, ... judgments while 10% of them is under one; then every
    # ceil(10%) more (with 8 documents that is every judgment)
    assert fits == list(range(8))


def test_cal_without_text_is_the_fusion_ranking():
    topic = depth_pool("1", list(LISTS), list(LISTS.values()), 100)
    order = make_order("cal", topic, LISTS)
    # reciprocal-rank fusion 1/(60 + rank) summed over the runs: 3 (1/61 + 1/66),
    # 6 (1/65 + 1/63), 4 (1/63 + 1/65), 8 (1/61), 1 (1/62), 7 (1/62), 5 (1/64), 2 (1/64)
    # ties (4 and 6 exactly; 1 and 7; 2 and 5) go to the lower doc id
    assert judge_all(order, set()) == [3, 4, 6, 8, 1, 7, 2, 5]


def test_cal_in_the_background_uses_the_newest_model_ready():
    order = cal(background=True)
    first = order.next_doc()
    order.record(first, 1, first in {1, 2, 5, 7})
    before = order.upcoming(7)
    job = order.training()
    assert job is not None and order.model is not None and order.model.learned == 0
    assert order.upcoming(7) == before  # nothing is fitted on the caller's thread
    late = order.training()
    second = order.next_doc()
    order.record(second, 0, False)
    newer = order.training().fit()
    assert order.use_model(newer) and order.model.learned == 2
    assert not order.use_model(late.fit())  # an older model never replaces a newer one
    stale = order.training()
    order.forget(second)  # an undo: the model fitted with it is refused
    assert stale is None or not order.use_model(stale.fit())
    fresh = order.training()
    assert fresh is not None and order.use_model(fresh.fit())
    assert order.model.learned == 1


@pytest.fixture(scope="module")
def cisi(shared_data, tmp_path_factory):
    """CISI with the demo's seven runs, depth-100 pool of the queries with a relevant
    pooled document: (pool, lists, qrels, texts, statements)."""
    from judgeapp.formats import iter_documents, read_qrels, read_run, read_topics
    from judgeapp.measures import Judgments, Vocabulary

    spec = importlib.util.spec_from_file_location(
        "make_runs", ROOT / "resources" / "demo" / "make_runs.py"
    )
    make_runs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_runs)
    where = shared_data / "collections" / "cisi"
    paths = make_runs.make_runs(
        where / "CISI.ALL", where / "CISI.QRY", tmp_path_factory.mktemp("cisi")
    )
    vocab = Vocabulary()
    judged = Judgments.from_qrels(read_qrels(where / "CISI.REL"), vocab)
    lists = {}
    for path in paths:
        run = read_run(path)
        lists[run.tag] = {q: vocab.ids(t.docnos) for q, t in run.topics.items()}
    texts = {
        vocab.id(d.docno): f"{d.title}\n{d.text}"
        for d in iter_documents(where / "CISI.ALL")
        if d.docno in vocab
    }
    statements = {t.qid: t.title or t.description for t in read_topics(where / "CISI.QRY")}
    qrels = {q: (t.docids, t.grades) for q, t in judged.topics.items()}
    pool = {
        q: topic
        for q, topic in depth_pools(lists, qrels).items()
        if np.isin(topic.doc_ids, qrels[q][0][qrels[q][1] >= 1]).any()
    }
    return pool, lists, qrels, texts, statements


def test_cal_beats_maxmean_on_cisi_at_80_percent_recall(cisi):
    pool, lists, qrels, texts, statements = cisi
    assert len(pool) == 76
    results = simulate(
        ["maxmean", "cal"], pool, lists, qrels, seed=0, texts=texts, queries=statements
    )
    table = needed_table(results, (0.8,))
    # measured: 5,536 against 9,005 (0.61x); the target is 0.7x
    assert table["cal"][0] <= 0.7 * table["maxmean"][0]


@pytest.mark.parametrize(
    "topics, share",
    [
        (range(601, 626), 0.85),  # the topics its two parameters were chosen on: 0.82x
        (range(626, 651), 0.90),  # held out: 0.88x
    ],
)
def test_maxmean_shared_beats_maxmean_on_robust03(robust03, topics, share):
    lists, qrels = robust03
    pool = depth_pools(lists, [str(q) for q in topics])
    table = needed_table(simulate(["maxmean", "maxmean-shared"], pool, lists, qrels), (0.8,))
    assert table["maxmean-shared"][0] <= share * table["maxmean"][0]


@pytest.mark.parametrize(
    "topics, share",
    [
        (range(601, 626), 0.85),  # the topics its two parameters were chosen on: 0.80 / 0.72
        (range(626, 651), 0.90),  # held out: 0.75 / 0.80; the target is 0.9x
    ],
)
def test_ridge_fusion_beats_maxmean_on_robust03_at_80_and_90_percent(robust03, topics, share):
    lists, qrels = robust03
    pool = depth_pools(lists, [str(q) for q in topics])
    results = simulate(["maxmean", "ridge-fusion"], pool, lists, qrels)
    table = needed_table(results, (0.8, 0.9))
    for ours, base in zip(table["ridge-fusion"], table["maxmean"], strict=True):
        assert ours <= share * base


def test_the_pool_service_gives_cal_the_projects_texts_and_statement(tmp_path):
    from judgeapp.records import JudgmentState
    from judgeapp.services import imports
    from judgeapp.services.pools import PoolService
    from judgeapp.store import Store

    (tmp_path / "topics.tsv").write_text(f"1\t{QUERY}\n")
    (tmp_path / "docs.tsv").write_text("".join(f"d{d}\t{t}\n" for d, t in TEXTS.items()))
    for run, ids in LISTS.items():
        lines = [f"1 Q0 d{d} {r} {10 - r} {run}\n" for r, d in enumerate(ids.tolist(), 1)]
        (tmp_path / f"{run}.run").write_text("".join(lines))
    flutter = {1, 2, 5, 7}
    expected = [f"d{d}" for d in judge_all(cal(), flutter)]
    with Store.open(tmp_path / "p.db") as store:
        imports.import_topics(store, [tmp_path / "topics.tsv"])
        imports.import_documents(store, [tmp_path / "docs.tsv"])
        imports.import_runs(store, [tmp_path / "A.run", tmp_path / "B.run"])
        service = PoolService(store)
        service.create_pool("p", params={"depth": 10}, judging_order="cal")
        relevant = set(store.documents.docno_ids([f"d{d}" for d in flutter]).values())
        order = service.open_judging_order("p", "1")
        ann = store.team.assessor("ann")
        for _ in range(3):  # judged in the project: the reopened order resumes from them
            doc = order.next_doc()
            order.record(doc, int(doc in relevant), doc in relevant)
            store.judgments.record("1", doc, ann.id, JudgmentState(int(doc in relevant)))
        resumed = service.open_judging_order("p", "1")
        assert isinstance(resumed, TextOrder) and not resumed.background
        rest = judge_all(resumed, relevant)
        docnos = store.documents.docnos_of(list(order.judged) + rest)
        assert [docnos[d] for d in [*order.judged, *rest]] == expected
        background = service.open_judging_order("p", "1", background=True)
        assert background.background and background.training() is not None
