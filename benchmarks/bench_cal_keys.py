"""Grade keys in the judging view with the `cal` order at TREC pool size: key -> next
document on screen, while the order's model is refitted in the worker.

    python benchmarks/bench_cal_keys.py [--runs 40] [--topics 3] [--keys 60] [--words 250]

A generated project (in a temporary folder): per topic `--runs` runs of 1000 documents,
noisy copies of one hidden relevance (about 1.5% of the collection relevant), pooled to
depth 100 in `cal` order (about 1,500-2,000 documents a topic); every document has
`--words` words drawn from a common vocabulary, the relevant ones with some words of their
topic mixed in, so the model has something to learn. The real main window (offscreen)
judges `--keys` documents per topic with the grade keys, the grade from the hidden truth.

Timed: from the key press to the next document shown (the judging controller's
`document_shown` signal), median, 95th percentile and maximum, in three ways:

- worker, 0.3 s between keys (an assessor reading fast): as shipped;
- worker, keys back to back: every fit overlaps the next keys;
- inline: the same order refitting on the GUI thread (`background` off), what the worker
  saves.

Also the time of one fit (`Training.fit`) as the judgments grow. Target: key -> screen
under 50 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from qt_wait import EventWait  # noqa: E402  (beside this file)

ASSESSOR = "bench assessor"
COLLECTION = 20_000
LIST_LEN = 1000
VOCAB = 5000


def generate(folder: Path, n_runs: int, n_topics: int, words: int, seed: int = 1):
    """The project file and, per topic, docno -> grade (the hidden truth)."""
    from judgeapp.services import imports
    from judgeapp.services.pools import PoolService
    from judgeapp.store import Store

    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(VOCAB)])
    zipf = 1.0 / np.arange(1, VOCAB + 1)
    zipf /= zipf.sum()
    truth_of: dict[str, dict[str, int]] = {}
    quality = rng.uniform(0.3, 3.0, n_runs)
    topics, docs = [], []
    runs: dict[int, list[str]] = {r: [] for r in range(n_runs)}
    for t in range(n_topics):
        qid = str(401 + t)
        latent = rng.standard_normal(COLLECTION) * 2.0
        relevant = latent > np.quantile(latent, 0.985)
        own = rng.choice(VOCAB, 20, replace=False)  # the topic's words
        topics.append(f"{qid}\t{' '.join(vocab[own[:4]])}\n")
        pooled: set[int] = set()
        for r in range(n_runs):
            noisy = quality[r] * latent + rng.standard_normal(COLLECTION) * 3.0
            top = np.argpartition(-noisy, LIST_LEN)[:LIST_LEN]
            top = top[np.argsort(-noisy[top])]
            pooled.update(top[:100].tolist())
            runs[r] += [
                f"{qid} Q0 T{t}-{d} {i} {LIST_LEN - i} run{r}\n" for i, d in enumerate(top, 1)
            ]
        truth_of[qid] = {}
        for d in sorted(pooled):
            body = vocab[rng.choice(VOCAB, words, p=zipf)]
            if relevant[d]:
                mix = rng.random(words) < 0.05
                body[mix] = vocab[rng.choice(own, int(mix.sum()))]
            docs.append(f"T{t}-{d}\t{' '.join(body)}\n")
            truth_of[qid][f"T{t}-{d}"] = int(relevant[d])
    (folder / "topics.tsv").write_text("".join(topics))
    (folder / "docs.tsv").write_text("".join(docs))
    paths = []
    for r, lines in runs.items():
        path = folder / f"run{r}.run"
        path.write_text("".join(lines))
        paths.append(path)
    db = folder / "bench.db"
    with Store.open(db) as store:
        imports.import_topics(store, [folder / "topics.tsv"])
        imports.import_documents(store, [folder / "docs.tsv"])
        imports.import_runs(store, paths)
        PoolService(store).create_pool("cal", params={"depth": 100}, judging_order="cal")
    return db, truth_of


def summary(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms, max {ms[-1]:.1f} ms"


def judge(args, db: Path, truth_of, gap: float, inline: bool, folder: Path):
    from PySide6.QtCore import QSettings
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from judgeapp.app import build_main_window, ensure_app

    app = ensure_app()
    settings = QSettings(str(folder / f"settings-{gap}-{inline}.ini"), QSettings.Format.IniFormat)
    settings.setValue("assessor", f"{ASSESSOR} {gap} {inline}")
    window, controller = build_main_window(settings)
    window.resize(1280, 800)
    window.show()
    waiting = EventWait(app)  # (benchmarks/qt_wait.py)
    wait_for, idle = waiting.until, waiting.idle

    from judgeapp.ui.ops import Ops

    controller.open_project(str(db))
    wait_for(Ops.all_idle, 120)  # read in a worker
    idle(0.5)
    judging = controller.judging
    shown = [0.0]
    judging.document_shown.connect(lambda _doc: shown.__setitem__(0, time.perf_counter()))
    times, opened = [], []
    store = controller.workbench.store
    for qid in truth_of:
        t0 = time.perf_counter()
        controller.open_topic(qid)
        wait_for(Ops.all_idle, 120)  # the topic is read in a worker
        opened.append(time.perf_counter() - t0)
        order = judging.queue.order
        if inline:
            order.background = False
        window.activateWindow()
        wait_for(lambda: judging.training is None, 30)
        for _ in range(args.keys):
            doc = judging.current
            if doc is None:
                break
            grade = truth_of[qid][store.documents.docnos_of([doc])[doc]]
            target = QApplication.focusWidget() or window.judging_view
            shown[0] = 0.0
            t0 = time.perf_counter()
            QTest.keyClick(target, str(grade))
            if not wait_for(lambda: shown[0] > 0, 30):
                raise SystemExit("no next document 30 s after a grade key")
            times.append(shown[0] - t0)
            if gap:
                idle(gap)
        wait_for(lambda: judging.training is None, 60)
        if not inline and order.training() is not None:  # a fit due but never run
            raise SystemExit(f"the model learned {order.model.learned} of {len(order.judged)}")
    window.close()
    return times, opened


def fit_times(db: Path, qid: str) -> list[tuple[int, float]]:
    """Time of one fit after n judgments (the first n of the order's own proposals)."""
    from judgeapp.services.pools import PoolService
    from judgeapp.store import Store

    out = []
    with Store.open(db) as store:
        order = PoolService(store).open_judging_order("cal", qid, background=True)
        order.record(order.next_doc(), 1, True)
        order.record(order.next_doc(), 0, False)
        order.training().fit()  # scikit-learn's first fit loads its modules: not timed
        for n in (10, 50, 200):
            while len(order.judged) < n:
                doc = order.next_doc()
                order.record(doc, 0, len(order.judged) % 7 == 0)
            job = order.training()
            start = time.perf_counter()
            job.fit()
            out.append((n, time.perf_counter() - start))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--topics", type=int, default=3)
    parser.add_argument("--keys", type=int, default=60)
    parser.add_argument("--words", type=int, default=250)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        db, truth_of = generate(folder, args.runs, args.topics, args.words)
        sizes = [len(t) for t in truth_of.values()]
        print(
            f"project: {args.topics} topics, {args.runs} runs, pools of {min(sizes)}-{max(sizes)} "
            f"documents of {args.words} words ({time.perf_counter() - start:.0f} s)"
        )
        for n, seconds in fit_times(db, next(iter(truth_of))):
            print(f"one fit after {n} judgments: {seconds * 1000:.1f} ms")
        for label, gap, inline in (
            ("worker, 0.3 s between keys", 0.3, False),
            ("worker, keys back to back", 0.0, False),
            ("inline fits, 0.3 s between keys", 0.3, True),
        ):
            times, opened = judge(args, db, truth_of, gap, inline, folder)
            print(f"{label}: key -> next document {summary(times)} ({len(times)} keys)")
        print(f"opening a topic (TF-IDF of its pool): {summary(opened)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
