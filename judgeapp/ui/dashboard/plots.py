"""The dashboard's plots: matplotlib figures on Qt canvases, updated in place.

Each plot creates its artists once (`configure`, when the runs or the topic shown change)
and afterwards only sets their data (`update`). The artists that change are *animated*:
a full draw renders everything else (axes, ticks, labels, legend) and keeps that picture
as the background of the axes; a live update restores that background, draws the changed
artists on it and repaints the axes' region of the canvas (with the table and the other
plots, in one paint pass), a few milliseconds instead of a full draw's tens. Many curves or
bars are one collection each, so an update draws few artists; numbers that change with
every judgment are in a Qt caption under the canvas, not in matplotlib text. When the data
leave the axes' limits, or the plot was hidden while they changed, the next update is a
full `draw_idle()` instead; when they did not change, nothing is drawn. Either way a batch
of judgments gives at most one redraw per plot: `redraws` counts them (full draws and
region repaints), so the tests can check it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from matplotlib.artist import Artist
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

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
MARGINS = {"left": 54, "right": 10, "bottom": 40, "top": 22}


class PlotCanvas(FigureCanvasQTAgg):
    """A canvas that tells its plot when it becomes visible (hidden plots are not drawn)
    and keeps the axes' margins constant in pixels when it is resized."""

    def __init__(self, figure: Figure, on_show: Callable[[], None]) -> None:
        super().__init__(figure)
        self._on_show = on_show
        self.painted_at = 0.0  # time.perf_counter() of the last paint on screen

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        self.painted_at = time.perf_counter()

    def update_region(self, bbox) -> None:
        """Schedule a repaint of a region given in display (pixel) coordinates: painted
        with the table and the other plots in one pass of the event loop (matplotlib's
        blit() repaints at once, each canvas on its own)."""
        ratio = self.device_pixel_ratio
        left, bottom, width, height = (int(v / ratio) for v in bbox.bounds)
        top = self.rect().height() - (bottom + height)
        self.update(left - 1, top - 1, width + 3, height + 3)

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
        self._changed = True
        self._data_key: tuple = ()
        self.canvas.mpl_connect("draw_event", self._on_draw)
        # numbers that change with every judgment go in a Qt caption under the canvas:
        # text is the dearest thing matplotlib draws, Qt draws it for next to nothing
        self.caption = QLabel()
        self.caption.setObjectName("muted")
        self.caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.caption.setWordWrap(True)
        self.widget = QWidget()
        layout = QVBoxLayout(self.widget)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.canvas, 1)
        layout.addWidget(self.caption)

    # -- drawing ----------------------------------------------------------------------------
    def _on_draw(self, _event) -> None:
        # a full draw just rendered everything but the animated artists; what they cover
        # is the axes, whose picture is kept as the background of the live updates
        self._background = self.canvas.copy_from_bbox(self.ax.bbox)
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
        when nothing was drawn yet, or after changes while hidden); none when the data are
        what is shown already."""
        if not self.canvas.isVisible():
            self._stale = True  # drawn when shown
            return
        if full or self._stale or self._background is None:
            self._stale = True
            self.canvas.draw_idle()
            return
        if not self._changed:
            return  # this batch changed nothing the plot shows
        self.canvas.restore_region(self._background)
        for artist in self.live:
            self.figure.draw_artist(artist)
        self.canvas.update_region(self.ax.bbox)
        self.blits += 1
        self.redraws += 1
        self.drawn_at = time.perf_counter()

    def _data(self, *parts: object) -> None:
        """Note what the artists now show: a refresh with nothing new draws nothing."""
        key = tuple(p.tobytes() if isinstance(p, np.ndarray) else p for p in parts)
        self._changed = key != self._data_key
        self._data_key = key

    def _caption(self, text: str) -> None:
        if self.caption.text() != text:
            self.caption.setText(text)

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


def _legend(ax, handles: Sequence[Line2D], loc: str) -> None:
    legend = ax.get_legend()
    if legend is not None:
        legend.remove()
    if handles:
        ax.legend(
            handles=list(handles),
            loc=loc,
            fontsize=FONT_SIZE - 1,
            frameon=True,
            framealpha=0.85,
            handlelength=1.5,
            borderaxespad=0.3,
        )


class _RunLinesPlot(LivePlot):
    """One curve per chosen run, all of them one LineCollection: a live update draws one
    artist whatever the number of runs."""

    legend_loc = "best"  # placed at each full draw, where the curves leave room

    def __init__(self) -> None:
        super().__init__()
        self.runs: tuple[str, ...] = ()
        self.x = np.zeros(0)
        self.curves: LineCollection | None = None

    def configure_runs(self, runs: Sequence[str], x: Sequence[float]) -> None:
        self._forget_live()
        self.runs = tuple(runs)
        self.x = np.asarray(x, dtype=np.float64)
        colours = [COLOURS[i % len(COLOURS)] for i in range(len(self.runs))]
        self.curves = LineCollection([], colors=colours, linewidths=1.5)
        self.ax.add_collection(self.curves, autolim=False)
        self._animate(self.curves)
        handles = [
            Line2D([], [], color=c, linewidth=1.5, label=run)
            for c, run in zip(colours, self.runs, strict=True)
        ]
        _legend(self.ax, handles, self.legend_loc)

    def show_values(
        self, snapshot: Snapshot, per_topic: np.ndarray, mean: np.ndarray, topic: str | None
    ) -> bool:
        """Curves from `per_topic` [run, topic, x] for one topic, or from `mean` [run, x];
        True when the title changed (a full draw)."""
        index = {r: i for i, r in enumerate(snapshot.run_names)}
        if topic is not None and topic in snapshot.qids:
            values = per_topic[:, snapshot.topic_index(topic), :]
            title = f"{self.title}, topic {topic}"
        else:
            values = mean
            title = f"{self.title}, mean of {snapshot.num_topics} topics"
        ys = np.full((len(self.runs), self.x.size), np.nan)
        for i, run in enumerate(self.runs):
            if run in index:
                ys[i] = values[index[run]]
        if self.curves is not None:
            self.curves.set_segments([np.column_stack([self.x, y]) for y in ys])
        self._data(ys)
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
        self.caption.setText("interpolated as trec_eval's iprec_at_recall")

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
        self.caption.setText("trec_eval's ndcg_cut, k from 1 to 1000")

    def configure(self, runs: Sequence[str], cutoffs: Sequence[int]) -> None:
        self.cutoffs = tuple(cutoffs)
        self.ax.set_xlim(min(cutoffs) * 0.85, max(cutoffs) * 1.15)
        self.configure_runs(runs, cutoffs)

    def update(self, snapshot: Snapshot, topic: str | None) -> bool:
        return self.show_values(snapshot, snapshot.ndcg, snapshot.ndcg_mean, topic)


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
    HALF_WIDTH = 0.42

    def __init__(self) -> None:
        super().__init__()
        ax = self.ax
        ax.axhline(0.0, color="#6b727c", linewidth=0.8)
        ax.set_xlabel("Topics, sorted by difference", fontsize=FONT_SIZE)
        ax.set_ylabel("ΔAP", fontsize=FONT_SIZE)
        ax.set_xticks([])
        ax.grid(True, axis="y", color="#e6e8eb", linewidth=0.6)
        self.bars: PolyCollection | None = None
        self.limit = 0.0
        self.key: tuple = ()
        self._better, self._worse = to_rgba(BETTER), to_rgba(WORSE)

    def configure(self, run: str | None, baseline: str | None, n_topics: int) -> None:
        self._forget_live()
        self.key = (run, baseline, n_topics)
        self.bars = PolyCollection([], linewidths=0)
        self.ax.add_collection(self.bars, autolim=False)
        self._animate(self.bars)
        self.ax.set_xlim(-0.8, max(n_topics, 1) - 0.2)
        self.limit = 0.0
        if run is None or baseline is None:
            self._title("ΔAP: choose a run and a baseline")
        else:
            self._title(f"AP: {run} − {baseline}, per topic")

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
            self.limit = _nice_limit(max(biggest * 1.1, 1e-9))
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
            self.bars.set_verts(verts)
            self.bars.set_facecolor([self._better if d >= 0 else self._worse for d in diffs])
        self._data(diffs)
        better, worse = int((diffs > 0).sum()), int((diffs < 0).sum())
        mean = float(diffs.mean()) if diffs.size else 0.0
        self._caption(f"better on {better}, worse on {worse}; mean {mean:+.4f}")
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
            full |= self._title(f"Judging progress, topic {curve.qid}")
        n = curve.judged
        self.found.set_data(np.arange(0, n + 1), np.concatenate([[0], curve.relevant]))
        top = float(curve.found)
        text = f"{curve.found} relevant in {n} judged"
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
