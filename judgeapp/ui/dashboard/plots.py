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
from typing import ClassVar

import numpy as np
from matplotlib.artist import Artist
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from judgeapp.outputs import replacing

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


def grid_colour() -> str:
    """The plots' grid lines: faint on the light palette and on the dark one."""
    from judgeapp.ui import theme

    return theme.COLOURS["grid"] if theme.is_dark() else "#e6e8eb"


def _follow_theme(figure: Figure, ax) -> None:
    """The window's colours on the figure (a dark palette gets a dark plot)."""
    from judgeapp.ui import theme

    if not theme.is_dark():
        return
    colours = theme.COLOURS
    figure.set_facecolor(colours["window"])
    ax.set_facecolor(colours["base"])
    for spine in ax.spines.values():
        spine.set_color(colours["muted"])
    ax.tick_params(colors=colours["text"])
    ax.xaxis.label.set_color(colours["text"])
    ax.yaxis.label.set_color(colours["text"])
    ax.title.set_color(colours["strong"])


# margin fits after full draws at one canvas size, at most: each grows the margins by what
# stuck out, so one or two settle it; a bound, so that no size can redraw for ever
MAX_FITS = 3


class PlotCanvas(FigureCanvasQTAgg):
    """A canvas that tells its plot when it becomes visible (hidden plots are not drawn)
    and keeps the axes' margins constant in pixels when it is resized."""

    def __init__(
        self, figure: Figure, on_show: Callable[[], None], margins: dict[str, int] = MARGINS
    ) -> None:
        super().__init__(figure)
        self._on_show = on_show
        self.margins = dict(margins)  # its own: grown when the labels need more room
        self._fits: dict[tuple[int, int], int] = {}  # margin fits made at each size
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
        self._adjust(event.size().width(), event.size().height())
        super().resizeEvent(event)  # redraws

    def _adjust(self, width: int, height: int) -> None:
        """The axes inside the margins, for a canvas of `width` x `height` pixels."""
        w, h, m = max(width, 1), max(height, 1), self.margins
        self.figure.subplots_adjust(
            left=min(m["left"] / w, 0.4),
            right=max(1 - m["right"] / w, 0.6),
            bottom=min(m["bottom"] / h, 0.4),
            top=max(1 - m["top"] / h, 0.6),
        )

    def fit_margins(self, ax) -> bool:
        """Grow the margins where the axes' ticks and labels (as just drawn) stick out of
        the canvas, where they were cut off or ran into the caption under it: matplotlib's
        tight layout done once after a full draw, not on every draw. True when they grew
        (a redraw is due)."""
        fig = self.figure.bbox
        box = ax.get_tightbbox(self.get_renderer())
        if box is None:
            return False
        ratio = self.device_pixel_ratio or 1.0
        spill = {
            "left": fig.x0 - box.x0,
            "right": box.x1 - fig.x1,
            "bottom": fig.y0 - box.y0,
            "top": box.y1 - fig.y1,
        }
        size = (self.width(), self.height())
        if self._fits.get(size, 0) >= MAX_FITS:
            return False  # settled for this size (or as good as the size allows)
        self._fits[size] = self._fits.get(size, 0) + 1
        grown = False
        for side, pixels in spill.items():
            if pixels > 0.5:
                self.margins[side] += math.ceil(pixels / ratio) + 3
                grown = True
        if not grown:
            return False
        sp = self.figure.subplotpars
        before = (sp.left, sp.right, sp.bottom, sp.top)
        self._adjust(*size)
        # a canvas too small for its labels keeps the axes at their limits (_adjust's
        # 0.4/0.6): nothing moved, so no redraw (which would find them sticking out again)
        return (sp.left, sp.right, sp.bottom, sp.top) != before


class LivePlot:
    """One figure with one axes on one canvas; subclasses create and update artists."""

    title = ""
    name = "plot"  # file name stem of exports
    # the axes' margins in pixels (wider tick labels want a wider left)
    margins: ClassVar[dict[str, int]] = MARGINS

    def __init__(self) -> None:
        self.figure = Figure(figsize=(4.0, 3.2), dpi=100)
        self.canvas = PlotCanvas(self.figure, self._on_show, self.margins)
        self.canvas.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.canvas.setMinimumSize(150, 120)
        self.ax = self.figure.add_subplot()
        self.ax.tick_params(labelsize=FONT_SIZE)
        _follow_theme(self.figure, self.ax)
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
        if self.canvas.fit_margins(self.ax):
            self.canvas.draw_idle()  # again, with room for what stuck out
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
        # on screen the dashboard names the runs under the plots; a picture names them
        # beside the axes, and says what the caption says
        handles = getattr(self, "handles", None)
        legend = legend_beside(self.ax, handles) if handles else None
        title = self.ax.get_title()
        caption = self.caption.text()
        if caption:
            self.ax.set_title(f"{title}\n{caption}", fontsize=FONT_SIZE)
        try:
            with replacing(path) as tmp:  # whole or not at all
                self.figure.savefig(tmp, format=fmt, dpi=150, bbox_inches="tight")
        finally:
            if legend is not None:
                legend.remove()
            self.ax.set_title(title, fontsize=FONT_SIZE + 1)
            for artist in self.live:
                artist.set_animated(True)
            self.canvas.draw_idle()
        return path


def legend_beside(ax, handles: Sequence[Line2D]):
    """A legend to the right of the axes, outside them (a saved picture's): it never covers
    a curve. Returns it (to be removed again)."""
    return ax.legend(
        handles=list(handles),
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        fontsize=FONT_SIZE - 1,
        frameon=False,
        handlelength=1.5,
        borderaxespad=0.0,
    )
