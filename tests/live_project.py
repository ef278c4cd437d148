"""Small generated projects for the dashboard tests (tests/services/test_live_eval.py,
tests/ui/test_dashboard.py): files written to disk first, imported through the real import
services, so the same files feed the trec_eval oracle (pytrec_eval) in the tests.

Runs are noisy copies of one hidden ranking per topic; run `weak` lacks topic 3 (a missing
topic counts 0 under -c); the imported qrels source judges topics 1-3 partly and topic 4
with non-relevant grades only, so the first relevant judgment of topic 4 changes exactly
the runs that retrieved that document.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from judgeapp.services.policy import qrels_rows

SOURCE = "qrels-source"
TOPICS = ("1", "2", "3", "4")


@dataclass
class LiveProject:
    db: Path | str
    runs: dict[str, Path]  # run name -> run file
    qrels: Path
    topics: Path
    lists: dict[str, dict[str, list[str]]]  # run -> qid -> docnos in rank order


def write_project(
    folder: Path, n_runs: int = 6, depth: int = 30, seed: int = 3, db: str | None = None
) -> LiveProject:
    """The project in `folder` (its files, and project.db unless `db` names another
    project: a file or a URL)."""
    from judgeapp.services import imports
    from judgeapp.store import Store

    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    topics = folder / "topics.tsv"
    topics.write_text("".join(f"{q}\ttopic number {q} about things\n" for q in TOPICS))
    names = ["weak"] + [f"run{i}" for i in range(1, n_runs)]
    lists: dict[str, dict[str, list[str]]] = {n: {} for n in names}
    collection = 60
    qrels_lines = []
    for t, qid in enumerate(TOPICS):
        truth = rng.standard_normal(collection)
        for r, name in enumerate(names):
            if name == "weak" and qid == "3":
                continue
            noisy = (0.5 + r) * truth + rng.standard_normal(collection) * 2.0
            order = np.argsort(-noisy)[:depth]
            lists[name][qid] = [f"D{t}-{d:03d}" for d in order]
        best = np.argsort(-truth)
        if qid == "4":
            # judged, but nothing relevant yet: the live test judges the first relevant one
            judged = [(d, 0) for d in best[40:48]]
        else:
            judged = [(d, 2 if i < 3 else 1) for i, d in enumerate(best[:8])]
            judged += [(d, 0) for d in best[30:36]]
        qrels_lines += [f"{qid} 0 D{t}-{d:03d} {g}\n" for d, g in judged]
    runs = {}
    for name, topics_of_run in lists.items():
        path = folder / f"{name}.run"
        with path.open("w") as fh:
            for qid, docs in topics_of_run.items():
                for rank, doc in enumerate(docs, 1):
                    fh.write(f"{qid} Q0 {doc} {rank} {100 - rank} {name}\n")
        runs[name] = path
    qrels = folder / "source.qrels"
    qrels.write_text("".join(qrels_lines))
    # a short text for every document, as a real collection has (the judging view asks
    # to confirm a grade for a document without text)
    documents = folder / "documents.tsv"
    docnos = sorted({d for per_run in lists.values() for docs in per_run.values() for d in docs})
    documents.write_text("".join(f"{d}\tthings seen in document {d}\n" for d in docnos))
    where: Path | str = folder / "project.db" if db is None else db
    with Store.open(where) as store:
        imports.import_topics(store, [topics])
        imports.import_documents(store, [documents])
        imports.import_runs(store, list(runs.values()))
        imports.import_qrels(store, [qrels], [SOURCE])
    return LiveProject(where, runs, qrels, topics, lists)


def read_run_dict(path: Path) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        qid, _q0, doc, _rank, score, _tag = line.split()
        out.setdefault(qid, {})[doc] = float(score)
    return out


def qrels_dict(rows) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for qid, docno, grade in rows:
        out.setdefault(qid, {})[docno] = int(grade)
    return out


def oracle_ap(project: LiveProject, qrels: dict[str, dict[str, int]], level: int = 1):
    """trec_eval's AP (pytrec_eval, `map`) per run: {run: {qid: AP}}, and the mean over
    every judged topic with a run's missing topic as 0 (trec_eval -c)."""
    import pytrec_eval

    binary = {q: {d: int(g >= level) for d, g in docs.items()} for q, docs in qrels.items()}
    evaluator = pytrec_eval.RelevanceEvaluator(binary, {"map"})
    per_topic, means = {}, {}
    for name, path in project.runs.items():
        scores = evaluator.evaluate(read_run_dict(path))
        per_topic[name] = {q: v["map"] for q, v in scores.items()}
        means[name] = sum(per_topic[name].get(q, 0.0) for q in qrels) / len(qrels)
    return per_topic, means


def oracle_t_marks(
    per_topic: dict[str, dict[str, float]], baseline: str, qids, alpha: float = 0.05
):
    """Paired t-test of every run's per-topic AP against the baseline's over `qids` (a
    topic a run lacks counts 0, as under trec_eval -c), scipy's ttest_rel, Holm's
    correction by hand: {run: (corrected p, mark +1/-1/0)}."""
    from scipy.stats import ttest_rel

    base = [per_topic[baseline].get(q, 0.0) for q in qids]
    raw = {}
    for run in per_topic:
        if run == baseline:
            continue
        values = [per_topic[run].get(q, 0.0) for q in qids]
        raw[run] = 1.0 if values == base else float(ttest_rel(values, base).pvalue)
    order = sorted(raw, key=raw.get)
    out, running = {}, 0.0
    for k, run in enumerate(order):
        running = max(running, min(1.0, raw[run] * (len(order) - k)))
        delta = sum(per_topic[run].get(q, 0.0) for q in qids) - sum(base)
        mark = (1 if delta > 0 else -1) if running < alpha else 0
        out[run] = (running, mark)
    return out


def evaluate_command_output(project: LiveProject, store, folder: Path) -> str:
    """What `main.py evaluate -c -l 1` prints for the dashboard's default measures, the
    store's effective judgments (exported as qrels into `folder`) and the project's runs."""
    from judgeapp.measures import DEFAULT_GUI_MEASURES

    qrels = folder / "exported.qrels"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels_rows(store)))
    root = Path(__file__).resolve().parents[1]
    command = [sys.executable, str(root / "main.py"), "evaluate", "-c", "-l", "1"]
    for m in DEFAULT_GUI_MEASURES:
        command += ["-m", m]
    command += [str(qrels), *map(str, project.runs.values())]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def pooled_project(folder: Path) -> Path:
    """A project with a pool and one judgment by 'ann' (so the name is known to it)."""
    from judgeapp.app import open_workbench

    project = write_project(folder)
    wb = open_workbench(str(project.db))
    try:
        wb.set_assessor("ann")
        wb.build_pool("pool", list(project.runs), "depth", {"depth": 10}, "blind")
        queue = wb.queue("1")
        assert queue is not None
        first = queue.first_unjudged()
        assert wb.judging is not None and first is not None
        wb.judging.record("1", first, 1)
    finally:
        wb.close()
    return Path(project.db)
