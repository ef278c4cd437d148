"""Per-topic values of a measure from judgeapp and from the references ir_measures wraps
(its providers; gdeval.pl run from a copy printing 17 digits instead of 5), for the tests
of the measures beyond trec_eval and for benchmarks/parity_measures.py."""

from __future__ import annotations

import pkgutil
import subprocess
from pathlib import Path

import judgeapp


def ours(measure: str, qrels, run, ties: str = "trec_eval") -> dict[str, float]:
    return {
        m.query_id: m.value
        for m in judgeapp.iter_calc([measure], qrels, run, topics="run", ties=ties)
    }


def reference(provider: str, measure: str, qrels, run) -> tuple[dict[str, float], int]:
    """Per-topic values from an ir_measures provider, and how many topics it failed on: the
    accuracy provider divides by zero on a topic with no non-relevant retrieved document,
    so it is asked topic by topic and those are left out (counted)."""
    import ir_measures

    p = ir_measures.providers.registry[provider]
    m = ir_measures.parse_measure(measure)
    if provider != "accuracy":
        return {x.query_id: x.value for x in p.iter_calc([m], qrels, run) if x.query_id in run}, 0
    out: dict[str, float] = {}
    failed = 0
    for q in run:
        if q in qrels:
            try:
                out.update(
                    (x.query_id, x.value) for x in p.iter_calc([m], {q: qrels[q]}, {q: run[q]})
                )
            except ZeroDivisionError:
                failed += 1
    return out, failed


def gdeval_err(tmp: Path, qrels, run, k: int) -> dict[str, float]:
    """ERR@k per topic from ir_measures' bundled gdeval.pl (needs perl), printing 17
    digits; files are written into the folder `tmp`."""
    script = pkgutil.get_data("ir_measures", "bin/gdeval.pl").decode().replace("%.5f", "%.17g")
    (tmp / "gdeval.pl").write_text(script)
    (tmp / "qrels").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    (tmp / "run").write_text(
        "".join(f"{q} Q0 {d} 1 {s!r} r\n" for q, docs in run.items() for d, s in docs.items())
    )
    out = subprocess.run(
        ["perl", str(tmp / "gdeval.pl"), str(tmp / "qrels"), str(tmp / "run"), str(k)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    return {
        line.split(",")[1]: float(line.split(",")[3]) for line in out[1:] if ",amean," not in line
    }
