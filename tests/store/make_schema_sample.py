"""Write the sample project of the current schema: `python tests/store/make_schema_sample.py`.

Run once per released schema revision; the file it writes is kept forever so that
test_schema proves every later judgeapp still opens it with its data."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from judgeapp.records import Document, QrelsFile, RankedTopic, RunFile, Topic
from judgeapp.store import JudgmentState, RunImport, Store
from judgeapp.store.schema import SCHEMA_HEAD


def main() -> None:
    out = Path(__file__).parent / "fixtures" / f"schema_{SCHEMA_HEAD}.db"
    out.parent.mkdir(exist_ok=True)
    out.unlink(missing_ok=True)
    store = Store.open(out)
    store.topics.put([(Topic("1", "first"), "sample"), (Topic("2", "second"), "sample")])
    run = RunFile(
        "sample.run",
        "sample-run",
        {
            "1": RankedTopic(["d3", "d1", "d2"], np.array([3.0, 2.0, 1.0]), np.array([1, 2, 3])),
            "2": RankedTopic(["d2", "d1"], np.array([2.0, 1.0]), np.array([4, 5])),
        },
        5,
    )
    store.runs.add([RunImport(run)])
    qrels = QrelsFile("sample.qrels", ["1", "1"], ["d1", "d3"], np.array([2, 0]), np.array([1, 2]))
    store.judgments.import_qrels([(qrels, "sample.qrels")])
    alice = store.team.assessor("alice")
    ids = store.documents.intern(["d2"])
    store.judgments.record("2", ids["d2"], alice.id, JudgmentState(3))
    store.judgments.record("2", ids["d2"], alice.id, JudgmentState(1, "on reflection"))
    if SCHEMA_HEAD >= "0007":  # documents in the search index, a judgment found by search
        store.documents.put(
            [
                (Document("d1", "Shock waves", "A shock wave ahead of a blunt body."), "sample"),
                (Document("d9", "Nozzles", "A shock inside a supersonic nozzle."), "sample"),
            ]
        )
        ids = store.documents.intern(["d9"])
        store.judgments.record(
            "1",
            ids["d9"],
            alice.id,
            JudgmentState(2),
            origin="search",
            found_by="search",
            query="supersonic nozzle",
        )
        store.search.log(alice.id, "1", "collection", "supersonic nozzle", 1)
    store.close()
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
