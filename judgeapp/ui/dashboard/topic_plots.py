"""The dashboard's plots of one topic's judging and of per-topic differences: the
AP difference between two runs per topic, and relevant found against judged with the
estimate of the total (see `judgeapp.ui.dashboard.plots` for how they update in place)."""

from __future__ import annotations

import math
from typing import Any, ClassVar, cast

import numpy as np
from matplotlib.collections import PolyCollection
from matplotlib.colors import to_rgba

from judgeapp.services.live_eval import ProgressCurve, Snapshot
from judgeapp.ui.dashboard.plots import (
    BETTER,
    COLOURS,
    FONT_SIZE,
    MARGINS,
    WORSE,
    LivePlot,
    grid_colour,
)


def _nice_limit(value: float) -> float:
    """The smallest of 0.05, 0.1, 0.2, 0.25, 0.5, 0.75, 1 (and then whole numbers) at least
    `value`."""
    for limit in (0.05, 0.1, 0.2, 0.25, 0.5, 0.75, 1.0):
        if value <= limit:
            return limit
    return math.ceil(value)


class ApDifferencePlot(LivePlot):
    """Per-topic AP of one run minus the baseline's, sorted, as bars (one PolyCollection)."""

    title = "AP difference"
    name = "ap-difference"
    margins: ClassVar[dict[str, int]] = {
        **MARGINS,
        "left": 70,
    }  # signed tick labels (-0.25) and the ΔAP label
    HALF_WIDTH = 0.42

    def __init__(self) -> None:
        super().__init__()
        ax = self.ax
        ax.axhline(0.0, color="#6b727c", linewidth=0.8)
        ax.set_xlabel("Topics, sorted by difference", fontsize=FONT_SIZE)
        ax.set_ylabel("ΔAP", fontsize=FONT_SIZE)
        ax.set_xticks([])
        ax.grid(True, axis="y", color=grid_colour(), linewidth=0.6)
        self.bars: PolyCollection | None = None
        self.limit = 0.0
        self.key: tuple = ()
        self.pair = ""
        self._better, self._worse = np.array(to_rgba(BETTER)), np.array(to_rgba(WORSE))

    def configure(self, run: str | None, baseline: str | None, n_topics: int) -> None:
        self._forget_live()
        self.key = (run, baseline, n_topics)
        self.bars = PolyCollection([], linewidths=0)
        self.ax.add_collection(self.bars, autolim=False)
        self._animate(self.bars)
        self.ax.set_xlim(-0.8, max(n_topics, 1) - 0.2)
        self.limit = 0.0
        self._title("ΔAP per topic")
        self.pair = (
            "choose a run and a baseline"
            if run is None or baseline is None
            else (f"{run} − {baseline}")
        )

    def update(self, snapshot: Snapshot, run: str | None, baseline: str | None) -> bool:
        n = snapshot.num_topics
        if run is None or baseline is None or run not in snapshot.run_names:
            diffs = np.zeros(n)
        else:
            r = snapshot.run_names.index(run)
            b = snapshot.run_names.index(baseline)
            diffs = np.sort(snapshot.ap[r] - snapshot.ap[b])[::-1]
        full = False
        biggest = float(np.abs(diffs).max(initial=0.0))
        if biggest > self.limit or (biggest < self.limit / 4 and self.limit > 0.05):
            # a difference of APs lies within [-1, 1]: never a limit of 2 for 0.95
            self.limit = min(_nice_limit(max(biggest * 1.1, 1e-9)), 1.05)
            self.ax.set_ylim(-self.limit, self.limit)
            full = True
        if self.bars is not None:
            x = np.arange(n, dtype=np.float64)
            left, right = x - self.HALF_WIDTH, x + self.HALF_WIDTH
            zero = np.zeros(n)
            verts = np.stack(
                [
                    np.column_stack([left, zero]),
                    np.column_stack([left, diffs]),
                    np.column_stack([right, diffs]),
                    np.column_stack([right, zero]),
                ],
                axis=1,
            )
            self.bars.set_verts(list(verts))
            up = (diffs >= 0)[:, None]  # an RGBA row per bar: no colour parsed per bar
            # an (n, 4) array is what matplotlib takes as n colours (its stubs say sequences)
            self.bars.set_facecolor(cast(Any, np.where(up, self._better, self._worse)))
        self._data(diffs)
        better, worse = int((diffs > 0).sum()), int((diffs < 0).sum())
        mean = float(diffs.mean()) if diffs.size else 0.0
        self._caption(f"{self.pair}: better on {better}, worse on {worse}, mean {mean:+.4f}")
        return full


class ProgressPlot(LivePlot):
    """Relevant documents found against documents judged for one topic, with the pool's
    size and, when the pooling estimate exists, the estimated total and its interval."""

    title = "Judging progress"
    name = "judging-progress"

    def __init__(self) -> None:
        super().__init__()
        ax = self.ax
        ax.set_xlabel("Documents judged", fontsize=FONT_SIZE)
        ax.set_ylabel("Relevant found", fontsize=FONT_SIZE)
        ax.grid(True, color=grid_colour(), linewidth=0.6)
        (self.found,) = ax.step([], [], where="post", color=COLOURS[0], linewidth=1.6)
        self.band = ax.axhspan(0, 0, color=COLOURS[1], alpha=0.18, linewidth=0)
        self.estimate = ax.axhline(np.nan, color=COLOURS[1], linestyle="--", linewidth=1.2)
        self.pool = ax.axvline(np.nan, color="#6b727c", linestyle=":", linewidth=1.0)
        self._animate(self.found, self.band, self.estimate, self.pool)
        self.topic: str | None = None
        self.limits = (0.0, 0.0)

    def update(self, curve: ProgressCurve | None) -> bool:
        full = False
        if curve is None:
            self.found.set_data([], [])
            self.estimate.set_ydata([np.nan, np.nan])
            self.pool.set_xdata([np.nan, np.nan])
            self.band.set_visible(False)
            self._caption("judge a topic to follow its progress")
            self._data(None)
            self.topic = None
            if self.limits != (10.0, 5.0):
                self.ax.set_xlim(0, 10)
                self.ax.set_ylim(0, 5)
                self.limits = (10.0, 5.0)
                full = True
            return self._title("Judging progress") or full
        if curve.qid != self.topic:
            self.topic = curve.qid
            full |= self._title("Judging progress")
        n = curve.judged
        self.found.set_data(np.arange(0, n + 1), np.concatenate([[0], curve.relevant]))
        top = float(curve.found)
        text = f"topic {curve.qid}: {curve.found} relevant in {n} judged"
        if curve.pool_size:
            self.pool.set_xdata([curve.pool_size, curve.pool_size])
            text += f" of {curve.pool_size} pooled"
        else:
            self.pool.set_xdata([np.nan, np.nan])
        if curve.estimate is not None:
            point, low, high = curve.estimate
            self.estimate.set_ydata([point, point])
            self.band.set_visible(True)
            self.band.set_y(low)
            self.band.set_height(high - low)
            top = max(top, high)
            text += f"; estimated total {point:.0f} ({low:.0f}–{high:.0f})"
        else:
            self.estimate.set_ydata([np.nan, np.nan])
            self.band.set_visible(False)
        self._caption(text)
        self._data(curve.qid, curve.relevant, curve.pool_size, curve.estimate)
        # limits with room to grow, so that most judgments only blit
        xmax = float(max(curve.pool_size or 0, n, 10))
        ymax = max(top, 4.0)
        x_lim, y_lim = self.limits
        if xmax > x_lim or ymax * 1.05 > y_lim or x_lim > 3 * xmax or y_lim > 4 * ymax + 10:
            x_lim = xmax * (1.04 if curve.pool_size else 1.5)
            y_lim = ymax * 1.6 + 5
            self.ax.set_xlim(0, x_lim)
            self.ax.set_ylim(0, y_lim)
            self.limits = (x_lim, y_lim)
            full = True
        return full
