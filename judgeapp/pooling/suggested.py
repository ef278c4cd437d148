"""Judge the likely relevant first: a judging order from an automatic judge's scores (an
LLM's or a classifier's probability of relevance per pooled document), highest first; the
documents it did not score follow in rank order (round robin across runs).

The scores come as `priors` (doc id -> score): `PoolService.open_judging_order` reads them
from the project's automatic judgments, `simulate --suggestions FILE` from a file.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from judgeapp.pooling.candidates import PoolTopic
from judgeapp.pooling.order import ORDERS, RankOrder, _StaticOrder


class SuggestedOrder(_StaticOrder):
    name = "suggested"

    def __init__(
        self,
        topic: PoolTopic,
        run_lists: Mapping[str, np.ndarray],
        seed: int = 0,
        priors: Mapping[int, float] | None = None,
    ) -> None:
        self.priors = dict(priors or {})
        super().__init__(topic, run_lists, seed)

    def _setup(self, lists: list[np.ndarray]) -> None:
        by_rank = RankOrder(self.topic, dict(zip(self.runs, lists, strict=True)))._sequence
        position = np.empty(len(self.doc_ids), dtype=np.int64)
        position[by_rank] = np.arange(len(by_rank))
        scores = np.array(
            [self.priors.get(int(d), -np.inf) for d in self.doc_ids.tolist()], dtype=float
        )
        # highest score first; equal scores (and no score) in rank order
        self._sequence = np.lexsort((position, -scores))


ORDERS[SuggestedOrder.name] = SuggestedOrder
