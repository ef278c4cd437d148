"""The dashboard's per-run curves for one topic: precision-recall and nDCG@k (see
`judgeapp.ui.dashboard.plots` for how every plot updates in place)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.lines import Line2D

from judgeapp.measures.family import ELEVEN_LEVELS
from judgeapp.services.live_eval import Snapshot
from judgeapp.ui.dashboard.plots import COLOURS, FONT_SIZE, LivePlot, grid_colour


class _RunLinesPlot(LivePlot):
    """One curve per chosen run, all of them one LineCollection: a live update draws one
    artist whatever the number of runs. The runs are named in the dashboard's legend under
    the plots (never over a curve), and in a saved picture's legend beside the axes."""

    note = ""  # how the curve is computed, after the topic in the caption

    def __init__(self) -> None:
        super().__init__()
        self.runs: tuple[str, ...] = ()
        self.x = np.zeros(0)
        self.curves: LineCollection | None = None

    def configure_runs(self, runs: Sequence[str], x: Sequence[float]) -> bool:
        """Curves for `runs` at `x`; True when a full draw is needed. Other runs at the same
        x (the best N reordered by a judgment) recolour the one collection, drawn over the
        kept background like any update: nothing else of the figure names them."""
        self.runs = tuple(runs)
        colours = [COLOURS[i % len(COLOURS)] for i in range(len(self.runs))]
        x_new = np.asarray(x, dtype=np.float64)
        if self.curves is not None and np.array_equal(x_new, self.x):
            self.curves.set_color(colours)
            return False
        self._forget_live()
        self.x = x_new
        self.curves = LineCollection([], colors=colours, linewidths=1.5)
        self.ax.add_collection(self.curves, autolim=False)
        self._animate(self.curves)
        return True

    @property
    def handles(self) -> list[Line2D]:
        """The runs' lines for a saved picture's legend (made when saved: a judgment that
        reorders the best runs recolours the curves, and making these then took 3 ms)."""
        return [
            Line2D([], [], color=COLOURS[i % len(COLOURS)], linewidth=1.5, label=run)
            for i, run in enumerate(self.runs)
        ]

    def show_values(
        self, snapshot: Snapshot, per_topic: np.ndarray, mean: np.ndarray, topic: str | None
    ) -> bool:
        """Curves from `per_topic` [run, topic, x] for one topic, or from `mean` [run, x];
        True when the title changed (a full draw)."""
        index = {r: i for i, r in enumerate(snapshot.run_names)}
        if topic is not None and topic in snapshot.qids:
            values = per_topic[:, snapshot.topic_index(topic), :]
            where = f"topic {topic}"
        else:
            values = mean
            where = f"mean of {snapshot.num_topics} topics"
        self._caption(where)
        ys = np.full((len(self.runs), self.x.size), np.nan)
        for i, run in enumerate(self.runs):
            if run in index:
                ys[i] = values[index[run]]
        if self.curves is not None:
            self.curves.set_segments([np.column_stack([self.x, y]) for y in ys])
        self._data(ys, self.runs)
        return self._title(self.title)


class PrecisionRecallPlot(_RunLinesPlot):
    """Interpolated precision at trec_eval's eleven recall levels: one topic, or the mean
    over topics (the iprec_at_recall summary)."""

    title = "Precision–recall"
    name = "precision-recall"

    def __init__(self) -> None:
        super().__init__()
        ax = self.ax
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(0.0, 1.02)
        ax.set_xlabel("Recall", fontsize=FONT_SIZE)
        ax.set_ylabel("Precision", fontsize=FONT_SIZE)
        ax.grid(True, color=grid_colour(), linewidth=0.6)
        self.note = "interpolated as trec_eval's iprec_at_recall"
        self.canvas.setToolTip(f"Precision–recall, {self.note}")

    def configure(self, runs: Sequence[str]) -> bool:
        """The runs to plot; True when a full draw is needed."""
        return self.configure_runs(runs, ELEVEN_LEVELS)

    def update(self, snapshot: Snapshot, topic: str | None) -> bool:
        """Set the data; True when a full draw is needed (new title)."""
        return self.show_values(snapshot, snapshot.iprec, snapshot.iprec_mean, topic)


class NdcgCutoffPlot(_RunLinesPlot):
    """nDCG@k against k (log scale), one topic or the mean over topics."""

    title = "nDCG@k"
    name = "ndcg-at-k"

    def __init__(self) -> None:
        super().__init__()
        ax = self.ax
        ax.set_xscale("log")
        ax.set_ylim(0.0, 1.02)
        ax.set_xlabel("Cutoff k", fontsize=FONT_SIZE)
        ax.set_ylabel("nDCG@k", fontsize=FONT_SIZE)
        ax.grid(True, color=grid_colour(), linewidth=0.6, which="major")
        self.cutoffs: tuple[int, ...] = ()
        self.note = "trec_eval's ndcg_cut, k from 1 to 1000"
        self.canvas.setToolTip(f"nDCG@k, {self.note}")

    def configure(self, runs: Sequence[str], cutoffs: Sequence[int]) -> bool:
        """The runs to plot at these cutoffs; True when a full draw is needed."""
        if tuple(cutoffs) != self.cutoffs:
            self.cutoffs = tuple(cutoffs)
            self.ax.set_xlim(min(cutoffs) * 0.85, max(cutoffs) * 1.15)
        return self.configure_runs(runs, cutoffs)

    def update(self, snapshot: Snapshot, topic: str | None) -> bool:
        return self.show_values(snapshot, snapshot.ndcg, snapshot.ndcg_mean, topic)
