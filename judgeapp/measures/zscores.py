"""trec_eval's ``-Z``: each topic's value as a z-score against reference means.

The file has lines ``qid measure mean stddev`` (get_zscores.c), the measure named as
trec_eval prints it (``P_5``, ``num_ret``). Each evaluated topic's value v becomes
(v - mean) / stddev (convert_zscores.c); with stddev 0 it becomes 0 when v equals the mean;
a missing qid or measure, or a stddev of 0 with v off the mean, gives -1000000. Summaries
are then formed from the z-scores as from raw values (means, sums, geometric means), and
every number prints with four decimals, its name prefixed with ``Z``.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from judgeapp.formats.errors import FormatError
from judgeapp.formats.textio import PathArg, open_text
from judgeapp.measures.engine import Results

MISSING_ZSCORE = -1000000.0


def read_zscores(path: PathArg) -> dict[tuple[str, str], tuple[float, float]]:
    path = os.fspath(path)
    table: dict[tuple[str, str], tuple[float, float]] = {}
    with open_text(path) as fh:
        for n, line in enumerate(fh, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 4:
                raise FormatError(path, n, "expected 4 columns: qid measure mean stddev")
            try:
                table[fields[0], fields[1]] = (float(fields[2]), float(fields[3]))
            except ValueError as exc:
                raise FormatError(path, n, f"mean or stddev is not a number: {exc}") from exc
    return table


def apply_zscores(results: Results, table: dict[tuple[str, str], tuple[float, float]]) -> Results:
    """A copy of the results whose per-topic values are z-scores."""
    values = np.array(results.values, copy=True)
    for i, m in enumerate(results.measures):
        if m.aggregate == "text":
            continue
        for t, qid in enumerate(results.qids):
            found = table.get((qid, m.name))
            for r in range(len(results.run_names)):
                v = values[i, r, t]
                if not results.evaluated[r, t] or np.isnan(v):
                    continue
                if found is None:
                    values[i, r, t] = MISSING_ZSCORE
                    continue
                mean, std = found
                if std:
                    values[i, r, t] = (v - mean) / std
                else:
                    values[i, r, t] = 0.0 if v == mean else MISSING_ZSCORE
    return dataclasses.replace(results, values=values, zscore=True, _summary=None)
