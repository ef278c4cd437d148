"""Reciprocal rank of the first relevant document: RR (trec_eval recip_rank; MRR averaged).

Source (trec_eval 10.0, usnistgov/trec_eval): m_recip_rank.c. Mean reciprocal rank as
used in Voorhees, "The TREC-8 question answering track report" (TREC 1999).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from judgeapp.measures.batch import BatchView, KernelContext, MeasureArgs
from judgeapp.measures.family import Family
from judgeapp.measures.spec import Registrations, TrecSpec

REGISTRATIONS = Registrations()


@REGISTRATIONS.add(
    Family("RR", "Reciprocal rank of the first relevant document (trec_eval recip_rank)."),
    aliases=["MRR", "recip_rank"],
    trec=[TrecSpec("recip_rank", 9, nicknames=("official", "all_trec"))],
)
def k_rr(v: BatchView, ms: Sequence[MeasureArgs], ctx: KernelContext) -> np.ndarray:
    """m_recip_rank.c: 1 / rank of the first relevant document."""
    row, pos, k = v.rel
    first = k == 1
    out = np.zeros((len(ms), v.n_rows))
    for i, m in enumerate(ms):
        keep = first if m.at is None else first & (pos < m.at)
        out[i, row[keep]] = 1.0 / (pos[keep] + 1.0)
    return out
