"""A simulated judging campaign for the agreement tests (services, command, view).

20 topics of 15 pooled documents; each document has a hidden true grade. Every topic goes
to one of three assessors (in turn), and a seeded 20% of the topics to one more; on one of
those the third assessor also judges half of the documents (units with three ratings, and
missing ones). Each assessor grades from a known confusion model P(grade | true grade) of
their own. Optionally the true grades are imported as a qrels source, and five runs
(noisy rankings of the true grades, as files) are imported for ranking comparisons.

`Campaign.grades` records every grade given, independently of the store, for the
reference computations in the tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ASSESSORS = ("alice", "bob", "carol")
SOURCE = "truth"
TOPICS = tuple(str(401 + t) for t in range(20))
DOCS_PER_TOPIC = 15
GRADES = (0, 1, 2, 3)
PRIOR = (0.5, 0.25, 0.15, 0.10)
# P(given grade | true grade), one row per true grade: alice is lenient, bob strict, carol
# noisy
CONFUSION = {
    "alice": np.array(
        [
            [0.75, 0.20, 0.05, 0.00],
            [0.10, 0.60, 0.25, 0.05],
            [0.0, 0.15, 0.65, 0.20],
            [0, 0, 0.2, 0.8],
        ]
    ),
    "bob": np.array(
        [
            [0.95, 0.05, 0.0, 0.0],
            [0.35, 0.60, 0.05, 0.0],
            [0.10, 0.30, 0.55, 0.05],
            [0, 0.1, 0.3, 0.6],
        ]
    ),
    "carol": np.array(
        [[0.6, 0.2, 0.1, 0.1], [0.2, 0.5, 0.2, 0.1], [0.1, 0.2, 0.5, 0.2], [0.1, 0.1, 0.2, 0.6]]
    ),
}


@dataclass
class Campaign:
    db: str
    truth: dict[tuple[str, str], int]  # (qid, docno) -> true grade
    grades: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)
    assigned: dict[str, list[str]] = field(default_factory=dict)  # qid -> assessors
    runs: dict[str, Path] = field(default_factory=dict)

    def of(self, assessor: str) -> dict[tuple[str, str], int]:
        return {k: g[assessor] for k, g in self.grades.items() if assessor in g}


def build_campaign(
    db: str | Path,
    *,
    seed: int = 12,
    folder: Path | None = None,
    source: bool = False,
    topics: tuple[str, ...] = TOPICS,
    overlap: float = 0.2,
) -> Campaign:
    """Judge the campaign into the project at `db` (created); with `folder`, also write and
    import five runs there; with `source`, import the true grades as qrels source `truth`."""
    from judgeapp.records import Topic
    from judgeapp.services import imports
    from judgeapp.services.judging import JudgingService
    from judgeapp.store import Store

    rng = np.random.default_rng(seed)
    truth = {
        (q, f"{q}-D{d:02d}"): int(rng.choice(GRADES, p=PRIOR))
        for q in topics
        for d in range(DOCS_PER_TOPIC)
    }
    campaign = Campaign(str(db), truth)
    shared = sorted(rng.choice(len(topics), size=round(len(topics) * overlap), replace=False))
    for t, qid in enumerate(topics):
        first = ASSESSORS[t % 3]
        campaign.assigned[qid] = [first]
        if t in shared:
            campaign.assigned[qid].append(ASSESSORS[(t + 1) % 3])
    triple = topics[shared[0]]
    with Store.open(db) as store:
        # people judge topics of the project (the store refuses others)
        store.topics.put([(Topic(q, f"topic {q}"), "campaign") for q in topics])
        judges = {a: JudgingService(store, a) for a in ASSESSORS}
        for (qid, docno), true in truth.items():
            who = list(campaign.assigned[qid])
            if qid == triple and int(docno[-2:]) % 2 == 0:
                who.append(next(a for a in ASSESSORS if a not in who))
            for a in who:
                grade = int(rng.choice(GRADES, p=CONFUSION[a][true]))
                judges[a].record(qid, docno, grade)
                campaign.grades.setdefault((qid, docno), {})[a] = grade
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            for r in range(5):
                path = folder / f"sys{r}.run"
                lines = []
                for qid in topics:
                    docs = [d for q, d in truth if q == qid]
                    noise = rng.standard_normal(len(docs)) * (0.6 + 0.5 * r)
                    score = np.array([truth[(qid, d)] for d in docs]) + noise
                    for rank, i in enumerate(np.argsort(-score), 1):
                        lines.append(f"{qid} Q0 {docs[i]} {rank} {100 - rank} sys{r}\n")
                path.write_text("".join(lines))
                campaign.runs[f"sys{r}"] = path
            imports.import_runs(store, list(campaign.runs.values()))
        if source:
            assert folder is not None, "the qrels file is written into folder"
            path = folder / "truth.qrels"
            path.write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in truth.items()))
            imports.import_qrels(store, [path], [SOURCE])
    return campaign
