"""Results as text: trec_eval's own output, and csv / tsv / json for machines.

trec_eval format (meas_print_single.c, meas_print_final.c): the name left-justified in 22
characters, a tab, the qid or ``all``, a tab, the value (``%6.4f``; counts as integers;
``runid`` and ``relstring`` as text). With ``per_topic`` each evaluated topic's lines come
first (topics in byte order, measures in order), then the summary unless ``summary`` is off.
Several runs print one block after another, as separate trec_eval calls would.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator, Sequence
from pathlib import PurePath

import numpy as np

from judgeapp.measures.engine import Results


def _number(value: float, integer: bool) -> str:
    if integer:
        return str(int(value)) if math.isfinite(value) else "0"
    if math.isnan(value):
        # printf shows the sign bit: x86's 0.0/0.0 (trec_eval's iprec on an empty list) is
        # a negative NaN, "-nan"
        return ("-nan" if math.copysign(1.0, value) < 0 else "nan").rjust(6)
    return f"{value:6.4f}"


def _numbers(values: list[float], integer: bool) -> list[str]:
    """`_number` of many values (a list comprehension where no value needs care)."""
    if integer or not all(map(math.isfinite, values)):
        return [_number(v, integer) for v in values]
    return [f"{v:6.4f}" for v in values]


def _json_number(value: float, integer: bool) -> float | int | None:
    if not math.isfinite(value):
        return None
    return int(value) if integer else float(value)


def format_trec(
    results: Results,
    *,
    per_topic: bool = False,
    summary: bool = True,
    runs: list[int] | None = None,
) -> str:
    out: list[str] = []
    summ = results.summary() if summary else None
    # trec_eval -Z: "Z" before each numeric measure's name, every value as %6.4f
    z = "Z" if results.zscore else ""
    shown = [i for i, m in enumerate(results.measures) if m.info.per_topic]
    for r in runs if runs is not None else range(len(results.run_names)):
        if per_topic:
            topics = [t for t in range(len(results.qids)) if results.evaluated[r, t]]
            blocks = _topic_blocks(results, r, topics, shown, z)
            if blocks is not None:
                out.extend(blocks)
                topics = []
            # each measure's column of values formatted at once, then the lines in
            # trec_eval's order (topic by topic, measures in order)
            columns = []
            for i in shown:
                m = results.measures[i]
                if m.family == "relstring":
                    texts = results.texts[i][r]
                    columns.append((f"{m.name:<22}\t", [f"'{texts[t]}'" for t in topics]))
                else:
                    values = results.values[i, r, topics].tolist()
                    columns.append(
                        (f"{z}{m.name:<22}\t", _numbers(values, m.info.integer and not z))
                    )
            for k, t in enumerate(topics):
                qid = results.qids[t]
                out.extend(f"{prefix}{qid}\t{texts[k]}\n" for prefix, texts in columns)
        if summ is not None:
            for i, m in enumerate(results.measures):
                if m.family == "relstring":
                    continue  # trec_eval prints no summary for it
                if m.family == "runid":
                    out.append(f"{'runid':<22}\tall\t{results.runids[r]}\n")
                    continue
                value = _number(summ[i, r], m.info.integer and not z)
                out.append(f"{z}{m.name:<22}\tall\t{value}\n")
    return "".join(out)


def _topic_blocks(
    results: Results, r: int, topics: list[int], shown: list[int], z: str
) -> list[str] | None:
    """Each topic's lines of run ``r`` as one string: a template of the measures' lines
    filled by one ``%`` per topic (printf's ``%6.4f``, as trec_eval), its qid put in after;
    some 3 times faster than a string per line on Robust 2003 with -q -m all_trec. None
    when a value is not finite (NaN prints as trec_eval's C library does: `_number`)."""
    if not topics:
        return []
    parts = []
    texts = []
    for k, i in enumerate(shown):
        m = results.measures[i]
        if m.family == "relstring":
            name, value = f"{m.name:<22}", "'%s'"
            texts.append((k, i))
        else:
            name, value = f"{z}{m.name:<22}", "%d" if m.info.integer and not z else "%6.4f"
        parts.append(f"{name.replace('%', '%%')}\t\x00\t{value}\n")  # \x00: the qid
    values = results.values[shown, r][:, topics]
    numeric = [k for k, i in enumerate(shown) if results.measures[i].family != "relstring"]
    if not np.isfinite(values[numeric]).all():
        return None
    template = "".join(parts)
    rows = values.T.tolist()
    for k, i in texts:
        column = results.texts[i][r]
        for row, t in zip(rows, topics, strict=True):
            row[k] = column[t]
    qids = results.qids
    return [
        (template % tuple(row)).replace("\x00", qids[t])
        for row, t in zip(rows, topics, strict=True)
    ]


def format_trec_runs(results: Results, *, per_topic: bool = False, summary: bool = True) -> str:
    """trec_eval's output for several runs: one block per run, each opened by trec_eval's
    ``runid`` line unless the measures print it anyway, so that every block says which run
    it is (trec_eval evaluates one run per call). One run prints as trec_eval does."""
    if len(results.run_names) < 2 or any(m.family == "runid" for m in results.measures):
        return format_trec(results, per_topic=per_topic, summary=summary)
    return "".join(
        f"{'runid':<22}\tall\t{results.runids[r]}\n"
        + format_trec(results, per_topic=per_topic, summary=summary, runs=[r])
        for r in range(len(results.run_names))
    )


def _rows(results: Results, per_topic: bool, summary: bool) -> Iterator[tuple[str, str, str, str]]:
    """(run, qid, measure, value-as-text) rows, the order of the trec format."""
    summ = results.summary()
    for r, run in enumerate(results.run_names):
        if per_topic:
            for t, qid in enumerate(results.qids):
                if not results.evaluated[r, t]:
                    continue
                for i, m in enumerate(results.measures):
                    if not m.info.per_topic:
                        continue
                    if m.family == "relstring":
                        yield run, qid, m.name, results.texts[i][r][t]
                    else:
                        yield run, qid, m.name, _number(results.values[i, r, t], m.info.integer)
        if summary:
            for i, m in enumerate(results.measures):
                if m.family == "relstring":
                    continue
                if m.family == "runid":
                    yield run, "all", m.name, results.runids[r]
                else:
                    yield run, "all", m.name, _number(summ[i, r], m.info.integer).strip()


def format_delimited(
    results: Results, *, per_topic: bool = False, summary: bool = True, delimiter: str = ","
) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=delimiter, lineterminator="\n")
    writer.writerow(["run", "topic", "measure", "value"])
    for run, qid, name, value in _rows(results, per_topic, summary):
        writer.writerow([run, qid, name, value.strip()])
    return buf.getvalue()


def format_json(results: Results, *, per_topic: bool = False, summary: bool = True) -> str:
    summ = results.summary()
    runs = []
    for r, run in enumerate(results.run_names):
        entry: dict[str, object] = {"name": run, "runid": results.runids[r]}
        if summary:
            entry["num_topics"] = int(results.num_topics[r])
            entry["summary"] = {
                m.name: _json_number(summ[i, r], m.info.integer)
                for i, m in enumerate(results.measures)
                if m.aggregate != "text"
            }
        if per_topic:
            topics: dict[str, dict[str, object]] = {}
            for t, qid in enumerate(results.qids):
                if not results.evaluated[r, t]:
                    continue
                row: dict[str, object] = {}
                for i, m in enumerate(results.measures):
                    if m.family == "relstring":
                        row[m.name] = results.texts[i][r][t]
                    elif m.aggregate != "text":
                        row[m.name] = _json_number(results.values[i, r, t], m.info.integer)
                topics[qid] = row
            entry["per_topic"] = topics
        runs.append(entry)
    measures = [
        {"name": m.name, "measure": str(m), "aggregate": m.aggregate, "description": m.description}
        for m in results.measures
    ]
    return json.dumps({"measures": measures, "runs": runs}, indent=2) + "\n"


def run_labels(paths: Sequence[str], runids: Sequence[str]) -> tuple[str, ...]:
    """How tables name runs read from files: by their runid (the tag column, as trec_eval
    prints it), not by the path they were given as. A run whose runid is empty or shared
    with another run is named by its file name instead, and by the path as given where a
    label is still shared, so that no two runs carry one label."""
    labels = list(runids)
    shared = [i for i, label in enumerate(labels) if not label or labels.count(label) > 1]
    for i in shared:
        labels[i] = PurePath(paths[i]).name
    still = [i for i, label in enumerate(labels) if labels.count(label) > 1]
    for i in still:
        labels[i] = paths[i]
    return tuple(labels)


def format_results(
    results: Results, fmt: str = "trec", *, per_topic: bool = False, summary: bool = True
) -> str:
    if fmt == "trec":
        return format_trec_runs(results, per_topic=per_topic, summary=summary)
    if fmt == "csv":
        return format_delimited(results, per_topic=per_topic, summary=summary)
    if fmt == "tsv":
        return format_delimited(results, per_topic=per_topic, summary=summary, delimiter="\t")
    if fmt == "json":
        return format_json(results, per_topic=per_topic, summary=summary)
    raise ValueError(f"unknown output format {fmt!r}")
