"""The dashboard's plots: matplotlib figures on Qt canvases, updated in place.

Each plot creates its artists once (`configure`, when the runs or the topic shown change)
and afterwards only sets their data (`update`). The artists that change are *animated*:
a full draw renders everything else (axes, ticks, labels, legend) and keeps that picture
as the background; a live update restores the background, draws the changed artists on it
and blits the canvas, which costs a few milliseconds instead of a full draw's tens. When
the data leaves the axes' limits, or the plot was hidden while its data changed, the next
update is a full `draw_idle()` instead. Either way a batch of judgments gives one redraw:
`redraws` counts them (full draws and blits), so the tests can check it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from matplotlib.artist import Artist
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from PySide6.QtWidgets import QSizePolicy

from judgeapp.measures.measure import ELEVEN_LEVELS
from judgeapp.services.live_eval import ProgressCurve, Snapshot

COLOURS = (
    "#4c72b0",
    "#dd8452",
    "#55a868",
    "#c44e52",
    "#8172b3",
    "#937860",
    "#da8bc3",
    "#8c8c8c",
    "#ccb974",
    "#64b5cd",
)
BETTER, WORSE = "#2f9e6e", "#c44e52"
FONT_SIZE = 8


# Margins around the axes in pixels (tick labels, axis labels, title). Fixed margins set
# on resize instead of matplotlib's constrained layout, which costs more than the rest of
# a full draw together.
MARGINS = {"left": 44, "right": 8, "bottom": 34, "top": 20}


class PlotCanvas(FigureCanvasQTAgg):
    """A canvas that tells its plot when it becomes visible (hidden plots are not drawn)
    and keeps the axes' margins constant in pixels when it is resized."""

    def __init__(self, figure: Figure, on_show: Callable[[], None]) -> None:
        super().__init__(figure)
        self._on_show = on_show

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._on_show()

    def resizeEvent(self, event) -> None:
        w, h = max(event.size().width(), 1), max(event.size().height(), 1)
        self.figure.subplots_adjust(
            left=min(MARGINS["left"] / w, 0.4),
            right=max(1 - MARGINS["right"] / w, 0.6),
            bottom=min(MARGINS["bottom"] / h, 0.4),
            top=max(1 - MARGINS["top"] / h, 0.6),
        )
        super().resizeEvent(event)  # redraws


class LivePlot:
    """One figure with one axes on one canvas; subclasses create and update artists."""

    title = ""
    name = "plot"  # file name stem of exports

    def __init__(self) -> None:
        self.figure = Figure(figsize=(4.0, 3.2), dpi=100)
        self.canvas = PlotCanvas(self.figure, self._on_show)
        self.canvas.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.canvas.setMinimumSize(150, 160)
        self.ax = self.figure.add_subplot()
        self.ax.tick_params(labelsize=FONT_SIZE)
        self.redraws = 0  # full draws + blits: what "one redraw per batch" counts
        self.drawn_at = 0.0  # time.perf_counter() when the canvas last showed new data
        self.full_draws = 0
        self.blits = 0
        self.live: list[Artist] = []  # the animated artists, drawn over the background
        self._background = None
        self._stale = True
        self.canvas.mpl_connect("draw_event", self._on_draw)

    # -- drawing ----------------------------------------------------------------------------
    def _on_draw(self, _event) -> None:
        # a full draw just rendered everything but the animated artists
        self._background = self.canvas.copy_from_bbox(self.figure.bbox)
        for artist in self.live:
            self.figure.draw_artist(artist)
        self._stale = False
        self.full_draws += 1
        self.redraws += 1
        self.drawn_at = time.perf_counter()

    @property
    def pending(self) -> bool:
        """A full draw is due on a visible canvas."""
        return self._stale and self.canvas.isVisible()

    def _on_show(self) -> None:
        if self._stale:
            self.canvas.draw_idle()

    def refresh(self, full: bool = False) -> None:
        """Show the artists' new data: one redraw (a blit, or a full draw when `full`,
        when nothing was drawn yet, or after changes while hidden)."""
        if not self.canvas.isVisible():
            self._stale = True  # drawn when shown
            return
        if full or self._stale or self._background is None:
            self._stale = True
            self.canvas.draw_idle()
            return
        self.canvas.restore_region(self._background)
        for artist in self.live:
            self.figure.draw_artist(artist)
        self.canvas.blit(self.figure.bbox)  # repaints now
        self.blits += 1
        self.redraws += 1
        self.drawn_at = time.perf_counter()

    def _animate(self, *artists: Artist) -> None:
        for artist in artists:
            artist.set_animated(True)
            self.live.append(artist)

    def _forget_live(self) -> None:
        for artist in self.live:
            artist.remove()
        self.live = []

    def _title(self, text: str) -> bool:
        """Set the title; True when it changed (a full draw is needed)."""
        if self.ax.get_title() == text:
            return False
        self.ax.set_title(text, fontsize=FONT_SIZE + 1)
        return True

    def save(self, path: str | Path, fmt: str | None = None) -> Path:
        """Write the plot as PNG, SVG or PDF (from the suffix unless `fmt` is given)."""
        path = Path(path)
        fmt = (fmt or path.suffix.lstrip(".") or "png").lower()
        if fmt not in ("png", "svg", "pdf"):
            raise ValueError(f"cannot save a plot as {fmt!r} (png, svg or pdf)")
        # animated artists are left out of ordinary draws, savefig included
        for artist in self.live:
            artist.set_animated(False)
        try:
            self.figure.savefig(path, format=fmt, dpi=150, bbox_inches="tight")
        finally:
            for artist in self.live:
                artist.set_animated(True)
            self.canvas.draw_idle()
        return path


def _legend(ax, lines: Sequence[Line2D], loc: str) -> None:
    legend = ax.get_legend()
    if legend is not None:
        legend.remove()
    if lines:
        ax.legend(
            handles=list(lines),
            loc=loc,
            fontsize=FONT_SIZE - 1,
            frameon=True,
            framealpha=0.85,
            handlelength=1.5,
            borderaxespad=0.3,
        )


class _RunLinesPlot(LivePlot):
    """One line per chosen run."""

    legend_loc = "best"  # placed at each full draw, where the lines leave room

    def __init__(self) -> None:
        super().__init__()
        self.runs: tuple[str, ...] = ()
        self.lines: list[Line2D] = []

    def configure_runs(self, runs: Sequence[str], x: Sequence[float]) -> None:
        self._forget_live()
        self.runs = tuple(runs)
        self.lines = []
        for i, run in enumerate(self.runs):
            (line,) = self.ax.plot(
                x,
                np.full(len(x), np.nan),
                color=COLOURS[i % len(COLOURS)],
                marker="o",
                markersize=2.5,
                linewidth=1.4,
                label=run,
            )
            self.lines.append(line)
        self._animate(*self.lines)
        _legend(self.ax, self.lines, self.legend_loc)

    def show_values(
        self, snapshot: Snapshot, per_topic: np.ndarray, mean: np.ndarray, topic: str | None
    ) -> bool:
        """Lines from `per_topic` [run, topic, x] for one topic, or from `mean` [run, x];
        True when the title changed (a full draw)."""
        index = {r: i for i, r in enumerate(snapshot.run_names)}
        if topic is not None and topic in snapshot.qids:
            values = per_topic[:, snapshot.topic_index(topic), :]
            title = f"{self.title}, topic {topic}"
        else:
            values = mean
            title = f"{self.title}, mean of {snapshot.num_topics} topics"
        empty = np.full(values.shape[1], np.nan)
        for run, line in zip(self.runs, self.lines, strict=True):
            line.set_ydata(values[index[run]] if run in index else empty)
        return self._title(title)


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
        ax.set_ylabel("Interpolated precision", fontsize=FONT_SIZE)
        ax.grid(True, color="#e6e8eb", linewidth=0.6)

    def configure(self, runs: Sequence[str]) -> None:
        self.configure_runs(runs, ELEVEN_LEVELS)

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
        ax.grid(True, color="#e6e8eb", linewidth=0.6, which="major")
        self.cutoffs: tuple[int, ...] = ()

    def configure(self, runs: Sequence[str], cutoffs: Sequence[int]) -> None:
        self.cutoffs = tuple(cutoffs)
        self.ax.set_xlim(min(cutoffs) * 0.85, max(cutoffs) * 1.15)
        self.configure_runs(runs, cutoffs)

    def update(self, snapshot: Snapshot, topic: str | None) -> bool:
        return self.show_values(snapshot, snapshot.ndcg, snapshot.ndcg_mean, topic)


def _nice_limit(value: float) -> float:
    """The smallest of 0.05, 0.1, 0.2, 0.25, 0.5, 1 (and so on) at least `value`."""
    for limit in (0.05, 0.1, 0.2, 0.25, 0.5, 0.75, 1.0):
        if value <= limit:
            return limit
    return math.ceil(value)


class ApDifferencePlot(LivePlot):
    """Per-topic AP of one run minus the baseline's, sorted, as bars."""

    title = "AP difference"
    name = "ap-difference"

    def __init__(self) -> None:
        super().__init__()
        ax = self.ax
        ax.axhline(0.0, color="#6b727c", linewidth=0.8)
        ax.set_xlabel("Topics, sorted by difference", fontsize=FONT_SIZE)
        ax.set_ylabel("ΔAP", fontsize=FONT_SIZE)
        ax.set_xticks([])
        ax.grid(True, axis="y", color="#e6e8eb", linewidth=0.6)
        self.bars: list[Rectangle] = []
        self.summary: Text | None = None
        self.limit = 0.0
        self.key: tuple = ()

    def configure(self, run: str | None, baseline: str | None, n_topics: int) -> None:
        self._forget_live()
        self.key = (run, baseline, n_topics)
        self.bars = list(
            self.ax.bar(np.arange(n_topics), np.zeros(n_topics), width=0.85, color=BETTER)
        )
        self.ax.set_xlim(-0.8, max(n_topics, 1) - 0.2)
        self.summary = self.ax.text(
            0.99,
            0.97,
            "",
            transform=self.ax.transAxes,
            ha="right",
            va="top",
            fontsize=FONT_SIZE,
            bbox={"boxstyle": "round,pad=0.25", "facecolor": "white", "alpha": 0.8, "lw": 0},
        )
        self._animate(*self.bars, self.summary)
        self.limit = 0.0
        if run is None or baseline is None:
            self._title("ΔAP: choose a run and a baseline")
        else:
            self._title(f"AP: {run} − {baseline}, per topic")

    def update(self, snapshot: Snapshot, run: str | None, baseline: str | None) -> bool:
        if run is None or baseline is None or run not in snapshot.run_names:
            diffs = np.zeros(len(self.bars))
        else:
            r = snapshot.run_names.index(run)
            b = snapshot.run_names.index(baseline)
            diffs = np.sort(snapshot.ap[r] - snapshot.ap[b])[::-1]
        full = False
        biggest = float(np.abs(diffs).max(initial=0.0))
        if biggest > self.limit or (biggest < self.limit / 4 and self.limit > 0.05):
            self.limit = _nice_limit(max(biggest * 1.1, 1e-9))
            self.ax.set_ylim(-self.limit, self.limit)
            full = True
        for bar, d in zip(self.bars, diffs, strict=False):
            bar.set_height(d)
            bar.set_color(BETTER if d >= 0 else WORSE)
        if self.summary is not None:
            better = int((diffs > 0).sum())
            worse = int((diffs < 0).sum())
            mean = float(diffs.mean()) if diffs.size else 0.0
            self.summary.set_text(f"better on {better}, worse on {worse}; mean {mean:+.4f}")
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
        ax.grid(True, color="#e6e8eb", linewidth=0.6)
        (self.found,) = ax.step([], [], where="post", color=COLOURS[0], linewidth=1.6)
        self.band = ax.axhspan(0, 0, color=COLOURS[1], alpha=0.18, linewidth=0)
        self.estimate = ax.axhline(np.nan, color=COLOURS[1], linestyle="--", linewidth=1.2)
        self.pool = ax.axvline(np.nan, color="#6b727c", linestyle=":", linewidth=1.0)
        self.note = ax.text(
            0.02,
            0.97,
            "",
            transform=ax.transAxes,
            ha="left",
            va="top",
            fontsize=FONT_SIZE,
            bbox={"boxstyle": "round,pad=0.25", "facecolor": "white", "alpha": 0.8, "lw": 0},
        )
        self._animate(self.found, self.band, self.estimate, self.pool, self.note)
        self.topic: str | None = None
        self.limits = (0.0, 0.0)

    def update(self, curve: ProgressCurve | None) -> bool:
        full = False
        if curve is None:
            self.found.set_data([], [])
            self.estimate.set_ydata([np.nan, np.nan])
            self.pool.set_xdata([np.nan, np.nan])
            self.band.set_visible(False)
            self.note.set_text("judge a topic to follow its progress")
            self.topic = None
            if self.limits != (10.0, 5.0):
                self.ax.set_xlim(0, 10)
                self.ax.set_ylim(0, 5)
                self.limits = (10.0, 5.0)
                full = True
            return self._title("Judging progress") or full
        if curve.qid != self.topic:
            self.topic = curve.qid
            full |= self._title(f"Judging progress, topic {curve.qid}")
        n = curve.judged
        x = np.arange(0, n + 1)
        y = np.concatenate([[0], curve.relevant])
        self.found.set_data(x, y)
        top = float(curve.found)
        text = f"{curve.found} relevant in {n} judged"
        if curve.pool_size:
            self.pool.set_xdata([curve.pool_size, curve.pool_size])
            text += f" (pool {curve.pool_size})"
        else:
            self.pool.set_xdata([np.nan, np.nan])
        if curve.estimate is not None:
            point, low, high = curve.estimate
            self.estimate.set_ydata([point, point])
            self.band.set_visible(True)
            self.band.set_y(low)
            self.band.set_height(high - low)
            top = max(top, high)
            text += f"\nestimated total {point:.0f} ({low:.0f}–{high:.0f})"
        else:
            self.estimate.set_ydata([np.nan, np.nan])
            self.band.set_visible(False)
        self.note.set_text(text)
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
