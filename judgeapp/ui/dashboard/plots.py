"""The dashboard's plots: matplotlib figures on Qt canvases, updated in place.

Each plot creates its artists once (`configure`, when the runs or the topic shown change)
and afterwards only sets their data (`update`). The artists that change are *animated*:
a full draw renders everything else (axes, ticks, labels, legend), in a child process
(judgeapp.ui.plot_rendering: never on the GUI thread, which only shows the picture), and
that picture is kept as the background of the axes; a live update restores that background, draws the changed
artists on it and repaints the axes' region of the canvas (with the table and the other
plots, in one paint pass), a few milliseconds instead of a full draw's tens. Many curves or
bars are one collection each, so an update draws few artists; numbers that change with
every judgment are in a Qt caption under the canvas, not in matplotlib text. When the data
leave the axes' limits, or the plot was hidden while they changed, the next update is a
full draw instead; when they did not change, nothing is drawn. Either way a batch
of judgments gives at most one redraw per plot: `redraws` counts them (full draws and
region repaints), so the tests can check it.
"""

from __future__ import annotations

import pickle
import time
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import numpy as np
import shiboken6
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from judgeapp.outputs import replacing
from judgeapp.ui import plot_rendering
from judgeapp.ui.plot_child import Picture, Request, adjust

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


class PlotCanvas(FigureCanvasQTAgg):
    """A canvas that shows the pictures of its figure drawn elsewhere (a child process:
    judgeapp.ui.plot_rendering), tells its plot when it becomes visible (hidden plots are
    not drawn) and keeps the axes' margins constant in pixels when it is resized.

    `draw_idle()` asks its plot for a full draw in the child; `draw()` draws at once on the
    GUI thread (a screenshot). The picture shown is `picture` (an Agg renderer's pixels:
    the last full draw, with the live updates over it), never matplotlib's own renderer,
    which a resize replaces with a blank one before the next picture comes."""

    def __init__(self, figure: Figure, plot: LivePlot, margins: dict[str, int] = MARGINS) -> None:
        super().__init__(figure)
        self._plot = weakref.ref(plot)
        self.margins = dict(margins)  # its own: grown when the labels need more room
        self.fits: dict[tuple[int, int], int] = {}  # margin fits made at each size
        self.painted_at = 0.0  # time.perf_counter() of the last paint on screen
        self.picture: RendererAgg | None = None

    def draw_idle(self) -> None:
        plot = self._plot()
        if plot is not None:
            plot.draw_full()

    def draw(self) -> None:
        plot = self._plot()
        if plot is not None:
            plot.draw_full(now=True)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        try:
            rect = event.rect()
            picture = self.picture
            if picture is None:
                painter.fillRect(rect, QColor.fromRgbF(*self.figure.get_facecolor()))
            else:
                buf = picture.buffer_rgba()
                image = QImage(buf, buf.shape[1], buf.shape[0], QImage.Format.Format_RGBA8888)
                image.setDevicePixelRatio(self.device_pixel_ratio)
                shown = image.deviceIndependentSize()
                if shown.width() < self.width() or shown.height() < self.height():
                    # resized, the picture of the new size still to come
                    painter.fillRect(rect, QColor.fromRgbF(*self.figure.get_facecolor()))
                painter.setClipRect(rect)
                painter.drawImage(0, 0, image)
        finally:
            painter.end()
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
        plot = self._plot()
        if plot is not None:
            plot.on_shown()

    def resizeEvent(self, event) -> None:
        self.adjust(event.size().width(), event.size().height())
        super().resizeEvent(event)  # asks for a draw

    def adjust(self, width: int, height: int) -> None:
        """The axes inside the margins, for a canvas of `width` x `height` pixels."""
        adjust(self.figure, self.margins, width, height)


class LivePlot:
    """One figure with one axes on one canvas; subclasses create and update artists."""

    title = ""
    name = "plot"  # file name stem of exports
    # the axes' margins in pixels (wider tick labels want a wider left)
    margins: ClassVar[dict[str, int]] = MARGINS

    def __init__(self, renderer: plot_rendering.PlotRenderer | None = None) -> None:
        self.figure = Figure(figsize=(4.0, 3.2), dpi=100)
        self.canvas = PlotCanvas(self.figure, self, self.margins)
        self.canvas.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.canvas.setMinimumSize(150, 120)
        self.ax = self.figure.add_subplot()
        self.ax.tick_params(labelsize=FONT_SIZE)
        _follow_theme(self.figure, self.ax)
        # full draws are made by a child process (the application's, unless given one),
        # started by the first plot drawn: not in a window whose plots are never shown
        self.renderer = renderer or plot_rendering.shared(start=False)
        self.redraws = 0  # pictures shown + blits: what "one redraw per batch" counts
        self.drawn_at = 0.0  # time.perf_counter() when the canvas last showed new data
        self.full_draws = 0  # full draws of the figure (in the child or here)
        self.blits = 0
        self.live: list[Artist] = []  # the animated artists, drawn over the background
        self._background = None
        self._stale = True  # a full draw is due
        self._asked = False  # ... and asked for
        self._version = 0  # of the figure's still parts: a picture of an older one is dropped
        self._changed = True
        self._data_key: tuple = ()
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
    def draw_full(self, now: bool = False) -> None:
        """A full draw of the figure: in the child when the canvas is visible (shown when
        it comes back), at once on the GUI thread when `now`; else when it is shown."""
        self._stale = True
        self._version += 1
        self._asked = False  # (a picture asked for before is dropped when it comes)
        if now:
            self.renderer.draw_now(self)
        elif self.canvas.isVisible():
            self._asked = True
            self.renderer.draw(self)

    def render_request(self) -> Request | None:
        """The figure as it is, for a full draw at the canvas's size (None: no size)."""
        canvas = self.canvas
        if not shiboken6.isValid(canvas) or canvas.width() <= 0 or canvas.height() <= 0:
            return None  # gone (its window closed), or no room
        return Request(
            figure=pickle.dumps(self.figure, protocol=pickle.HIGHEST_PROTOCOL),
            version=self._version,
            width=canvas.width(),
            height=canvas.height(),
            ratio=canvas.device_pixel_ratio or 1.0,
            dpi=self.figure.dpi,
            inches=(self.figure.get_figwidth(), self.figure.get_figheight()),
            pixels=(self.figure.bbox.width, self.figure.bbox.height),
            margins=dict(canvas.margins),
            fits=dict(canvas.fits),
        )

    def show_picture(self, picture: Picture) -> None:
        """Show a full draw: its picture, the animated artists drawn over it (whose picture
        is kept as the background of the live updates)."""
        canvas = self.canvas
        if not shiboken6.isValid(canvas):
            return  # its window closed meanwhile
        width, height = self.figure.bbox.size  # as matplotlib sizes a renderer for it
        shown = canvas.picture
        if shown is None or (shown.width, shown.height) != (width, height):
            shown = RendererAgg(width, height, self.figure.dpi)
        into = np.asarray(shown.buffer_rgba())
        if picture.version != self._version or into.shape != (picture.height, picture.width, 4):
            self.renderer.dropped += 1  # the figure changed since: its picture is coming
            return
        canvas.margins, canvas.fits = dict(picture.margins), dict(picture.fits)
        canvas.adjust(canvas.width(), canvas.height())  # as the child fitted them
        into[...] = np.frombuffer(picture.rgba, dtype=np.uint8).reshape(into.shape)
        self._background = shown.copy_from_bbox(self.ax.bbox)
        for artist in self.live:
            artist.draw(shown)
        canvas.picture = shown
        canvas.update()
        self._stale = self._asked = False
        self.full_draws += picture.draws
        self.redraws += 1
        self.drawn_at = time.perf_counter()

    @property
    def pending(self) -> bool:
        """A full draw is due on a visible canvas."""
        return self._stale and self.canvas.isVisible()

    def on_shown(self) -> None:
        if self._stale:
            self.draw_full()

    def refresh(self, full: bool = False) -> None:
        """Show the artists' new data: one redraw (a blit, or a full draw when `full`,
        when nothing was drawn yet, or after changes while hidden); none when the data are
        what is shown already."""
        if not self.canvas.isVisible():
            self._stale = True  # drawn when shown
            return
        if full or self._background is None or self._stale:
            if full or not self._asked:
                self.draw_full()
            # else the picture asked for is drawn with the live artists as they are then
            return
        if not self._changed:
            return  # this batch changed nothing the plot shows
        picture = self.canvas.picture
        assert picture is not None
        picture.restore_region(self._background)
        for artist in self.live:
            artist.draw(picture)
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
            self.draw_full()
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
