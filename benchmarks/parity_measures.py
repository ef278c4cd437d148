"""Parity of the measures judgeapp has beyond trec_eval's all_trec with their reference
implementations, over the 17 Robust 2003 runs, per topic: the largest absolute difference
of any topic of any run (what the README's parity table shows).

References, each given the same ranking (scores n - rank of trec_eval's order, so ties
cannot be broken differently): cwl_eval (through ir_measures), gdeval.pl (ir_measures'
copy, printing 17 digits instead of 5), ir_measures' compat and accuracy providers, ranx
(hits), pyndeval (diversity, over subtopic judgments generated from the Robust 2003 qrels by
tests/measures/diversity_data.py), and trec_eval 10.0 built from source for rbp and yaap
(``--trec-eval PATH``; it prints 4 decimals, so 5e-5 is the floor there).

A second table gives the references the runs as they are, tied scores included, in file
order: each orders ties its own way, and judgeapp is asked for that way with ``ties=``
(docs/interop.md); beside it, the difference with judgeapp's default (trec_eval's) order,
which is what a user comparing numbers without ``--ties`` sees.

    python benchmarks/parity_measures.py [--trec-eval /tmp/trec_eval/trec_eval] [--out FILE]
"""

from __future__ import annotations

import argparse
import gzip
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import judgeapp  # noqa: E402
from judgeapp.formats import read_qrels, read_run  # noqa: E402
from tests.measures import diversity_data  # noqa: E402
from tests.measures.references import gdeval_err, ours, reference  # noqa: E402

ROBUST = ROOT.parent / "shared" / "data" / "robust03"
CWL = [
    "RBP(rel=1)",
    "RBP(p=0.95,rel=1)",
    "INST(max_rel=2)",
    "INSQ(max_rel=2)",
    "NERR8(max_rel=2)@10",
    "NERR9(max_rel=2)@10",
    "NERR10(max_rel=2)",
    "NERR11(max_rel=2)",
    "BPM(max_rel=2)@10",
    "SDCG(max_rel=2)@10",
]
DIVERSITY = [
    "alpha_nDCG@20",
    "alpha_DCG@20",
    "ERR_IA@20",
    "nERR_IA@20",
    "NRBP",
    "nNRBP",
    "AP_IA",
    "P_IA@20",
    "StRecall@20",
]


def worst(got, ref):
    return max((abs(got[q] - v) for q, v in ref.items()), default=0.0), len(ref)


def raw_run(rf, qrels):
    """{qid: {docno: score}} with the file's scores, in the file's order."""
    from judgeapp.formats.ties import in_file_order

    out = {}
    for q, t in rf.topics.items():
        if q in qrels:
            docs, scores, _ = in_file_order(t)
            out[q] = dict(zip(docs, scores.tolist(), strict=True))
    return out


def tie_references(qrels, raw, tmp, sub_qrels, nested):
    """(row name, tie order, judgeapp's values for a tie order, the reference's values)."""
    import ir_measures
    import ranx

    def ours_with(m, q=qrels, r=raw):
        return lambda ties: ours(m, q, r, ties)

    for m in ("RBP(rel=1)", "INST(max_rel=2)", "SDCG(max_rel=2)@10"):
        yield f"`{m}` (cwl_eval)", "file", ours_with(m), reference("cwl_eval", m, qrels, raw)[0]
    yield (
        "`Compat` (ir_measures compat)",
        "docno",
        ours_with("Compat"),
        reference("compat", "Compat", qrels, raw)[0],
    )
    yield (
        "`Judged@10` (ir_measures judged)",
        "docno",
        ours_with("Judged@10"),
        reference("judged", "Judged@10", qrels, raw)[0],
    )
    yield "`ERR@20` (gdeval)", "trec_eval", ours_with("ERR@20"), gdeval_err(tmp, qrels, raw, 20)
    for m, rm in (("AP", "map"), ("nDCG@10", "ndcg@10"), ("Hits@10", "hits@10")):
        values = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(raw), rm, return_mean=False)
        ref = dict(zip(sorted(raw), [float(v) for v in values], strict=True))
        yield f"`{m}` (ranx {rm})", "ranx", ours_with(m), ref
    p = ir_measures.providers.registry["pyndeval"]
    div = {q: docs for q, docs in raw.items() if q in nested}
    m = ir_measures.parse_measure("alpha_nDCG@20")
    ref = {x.query_id: x.value for x in p.iter_calc([m], sub_qrels, div)}
    yield (
        "`alpha_nDCG@20` (pyndeval)",
        "file",
        lambda ties: {
            x.query_id: x.value
            for x in judgeapp.iter_calc(["alpha_nDCG@20"], nested, div, topics="run", ties=ties)
        },
        ref,
    )


def trec_eval(binary, measure, qrels_path, run_path):
    out = subprocess.run(
        [binary, "-q", "-m", measure, str(qrels_path), str(run_path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {
        line.split("\t")[1]: float(line.split("\t")[2])
        for line in out.splitlines()
        if line.split("\t")[1] != "all"
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--trec-eval", help="trec_eval 10.0 binary (for rbp and yaap)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "parity_measures.md"))
    args = ap.parse_args()
    t0 = time.perf_counter()
    qrels_file = read_qrels(ROBUST / "robust03_qrels.txt")
    qrels: dict[str, dict[str, int]] = {}
    for q, d, g in qrels_file:
        qrels.setdefault(q, {})[d] = g
    rows = diversity_data.subtopic_rows(qrels_file)
    nested = diversity_data.nested(rows)
    import ir_measures

    sub_qrels = [ir_measures.Qrel(q, d, g, s) for q, s, d, g in rows]
    paths = sorted((ROBUST / "runs").glob("input.*.gz"))
    table: dict[str, list[float]] = {}
    counts: dict[str, int] = {}
    notes: dict[str, str] = {}
    tied: dict[str, list] = {}

    def record(name, value, n):
        table.setdefault(name, []).append(value)
        counts[name] = counts.get(name, 0) + n

    tmp = Path(tempfile.mkdtemp(prefix="parity-"))
    for path in paths:
        rf = read_run(path)
        run = {
            q: {d: float(len(t.docnos) - i) for i, d in enumerate(t.docnos)}
            for q, t in rf.topics.items()
            if q in qrels
        }
        for m in CWL:
            record(m, *worst(ours(m, qrels, run), reference("cwl_eval", m, qrels, run)[0]))
        for k in (10, 20):
            record(f"ERR@{k}", *worst(ours(f"ERR@{k}", qrels, run), gdeval_err(tmp, qrels, run, k)))
        for m in ("Compat", "Compat(p=0.8)"):
            record(m, *worst(ours(m, qrels, run), reference("compat", m, qrels, run)[0]))
        for m in ("Accuracy", "Accuracy@10"):
            ref, failed = reference("accuracy", m, qrels, run)
            record(m, *worst(ours(m, qrels, run), ref))
            if failed:
                notes[m] = (
                    notes.get(m, "")
                    + f"{path.name}: {failed} topic(s) the reference divides by zero on; "
                )
        import numpy as np
        import ranx

        hits = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "hits@10", return_mean=False)
        record(
            "Hits@10",
            *worst(
                ours("Hits@10", qrels, run),
                dict(zip(sorted(run), np.asarray(hits).tolist(), strict=True)),
            ),
        )
        p = ir_measures.providers.registry["pyndeval"]
        div_run = {q: docs for q, docs in run.items() if q in nested}
        parsed = {ir_measures.parse_measure(m): m for m in DIVERSITY}
        ref_div: dict[str, dict[str, float]] = {m: {} for m in DIVERSITY}
        for x in p.iter_calc(list(parsed), sub_qrels, div_run):
            ref_div[parsed[x.measure]][x.query_id] = x.value
        for m in DIVERSITY:
            got = {
                x.query_id: x.value for x in judgeapp.iter_calc([m], nested, div_run, topics="run")
            }
            record(m, *worst(got, ref_div[m]))
        raw = raw_run(rf, qrels)
        for name, ties, got_of, ref in tie_references(qrels, raw, tmp, sub_qrels, nested):
            tied.setdefault(name, [0.0, 0.0, 0, ties])
            matched, n = worst(got_of(ties), ref)
            default, _ = worst(got_of("trec_eval"), ref)
            row = tied[name]
            row[0], row[1], row[2] = max(row[0], matched), max(row[1], default), row[2] + n
        if args.trec_eval:
            qpath = ROBUST / "robust03_qrels.txt"
            rpath = tmp / "run.txt"
            with gzip.open(path, "rt") as src:
                rpath.write_text(src.read())
            for ours_m, te_m in (("RBP", "rbp.p=0.8"), ("yaap", "yaap")):
                ref = trec_eval(args.trec_eval, te_m, qpath, rpath)
                got = {
                    x.query_id: x.value
                    for x in judgeapp.iter_calc(
                        [ours_m], qrels_file and str(qpath), str(rpath), topics="run"
                    )
                }
                record(f"{ours_m} (trec_eval {te_m}, 4 decimals)", *worst(got, ref))
        print(f"{path.name} done ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    lines = [
        f"Parity over the {len(paths)} Robust 2003 runs (per topic; largest absolute difference over every topic of every run)",
        "",
        "| measure | reference | topics compared | max abs difference |",
        "|---|---|---:|---:|",
    ]
    ref_of = (
        {m: "cwl_eval" for m in CWL}
        | {
            "ERR@10": "gdeval",
            "ERR@20": "gdeval",
            "Compat": "ir_measures compat",
            "Compat(p=0.8)": "ir_measures compat",
            "Accuracy": "ir_measures accuracy",
            "Accuracy@10": "ir_measures accuracy",
            "Hits@10": "ranx hits",
        }
        | {m: "pyndeval (generated subtopics)" for m in DIVERSITY}
    )
    for name, values in table.items():
        ref = ref_of.get(name, "trec_eval 10.0")
        lines.append(f"| `{name}` | {ref} | {counts[name]} | {max(values):.1e} |")
    for name, note in notes.items():
        lines.append(f"\n{name}: {note}")
    lines += [
        "",
        f"The same {len(paths)} runs as they are (tied scores included, file order), each "
        "reference ordering ties its own way:",
        "",
        "| measure (reference) | its tie order | topics | max abs diff, judgeapp with that "
        "`--ties` | max abs diff, judgeapp's default order |",
        "|---|---|---:|---:|---:|",
    ]
    for name, (matched, default, n, ties) in tied.items():
        lines.append(f"| {name} | `{ties}` | {n} | {matched:.1e} | {default:.1e} |")
    text = "\n".join(lines) + "\n"
    Path(args.out).write_text(text)
    print(text)
    print(f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
