"""Full draws of the dashboard's plots, outside the window's process (issue 28: the GUI
thread never stalls over 50 ms).

A full draw of a plot (ticks, labels, title: matplotlib's Agg, 40-60 ms of CPU; the first
one of a process finds the fonts, 400-500 ms) on the GUI thread stalled the window; in a
thread of the window's process it would hold the interpreter lock against the GUI thread
instead (every call the GUI thread makes into Qt lets go of the lock and waits to take it
back). So the window sends a copy of the figure (a pickle: 3-6 ms) to a child process,
`python -m judgeapp.ui.plot_child`, which draws it without its animated artists, fits the
axes' margins to what the labels need, and sends back the picture; the window shows it and
draws the animated artists over it, as every live update does (judgeapp.ui.dashboard.plots).

The child reads requests from its standard input and writes answers to its standard output,
each a length and a pickle, one at a time; it ends when its input does (the window closed or
died). Nothing here imports Qt: the same `render` runs in the window's process when the child
cannot (judgeapp.ui.plot_rendering).
"""

from __future__ import annotations

import math
import pickle
import struct
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import IO, Any

# margin fits after full draws at one canvas size, at most: each grows the margins by what
# stuck out, so one or two settle it; a bound, so that no size can redraw for ever
MAX_FITS = 3
HEADER = struct.Struct("<Q")


@dataclass
class Request:
    figure: bytes  # the pickled figure
    version: int  # the plot's, at the time of asking: an answer to an older one is dropped
    width: int  # the canvas in logical pixels
    height: int
    ratio: float  # device pixels per logical pixel
    dpi: float  # the figure's dots per inch (device pixels)
    inches: tuple[float, float]  # the figure's size (the canvas's in device pixels / dpi)
    pixels: tuple[float, float]  # ... in device pixels, as the window's figure has it
    margins: dict[str, int]  # the axes' margins in logical pixels
    fits: dict[tuple[int, int], int] = field(default_factory=dict)  # fits made at a size
    plot: int = 0  # which plot asks (the window's key)


@dataclass
class Picture:
    plot: int
    version: int
    width: int  # in device pixels
    height: int
    rgba: bytes  # the figure without its animated artists, RGBA, top row first
    margins: dict[str, int]
    fits: dict[tuple[int, int], int]
    draws: int  # full draws it took (more than one when the margins grew)
    cpu_ms: float
    error: str = ""  # a traceback when the draw failed


def adjust(figure: Any, margins: dict[str, int], width: int, height: int) -> None:
    """The axes inside the margins, for a canvas of `width` x `height` logical pixels."""
    w, h, m = max(width, 1), max(height, 1), margins
    figure.subplots_adjust(
        left=min(m["left"] / w, 0.4),
        right=max(1 - m["right"] / w, 0.6),
        bottom=min(m["bottom"] / h, 0.4),
        top=max(1 - m["top"] / h, 0.6),
    )


def fit_margins(figure: Any, ax: Any, renderer: Any, request: Request) -> bool:
    """Grow the margins where the axes' ticks and labels (as just drawn) stick out of the
    canvas: matplotlib's tight layout done once after a full draw, not on every draw. True
    when they grew (a redraw is due)."""
    fig = figure.bbox
    box = ax.get_tightbbox(renderer)
    if box is None:
        return False
    spill = {
        "left": fig.x0 - box.x0,
        "right": box.x1 - fig.x1,
        "bottom": fig.y0 - box.y0,
        "top": box.y1 - fig.y1,
    }
    size = (request.width, request.height)
    fits = request.fits
    if fits.get(size, 0) >= MAX_FITS:
        return False  # settled for this size (or as good as the size allows)
    fits[size] = fits.get(size, 0) + 1
    grown = False
    for side, pixels in spill.items():
        if pixels > 0.5:
            request.margins[side] += math.ceil(pixels / (request.ratio or 1.0)) + 3
            grown = True
    if not grown:
        return False
    sp = figure.subplotpars
    before = (sp.left, sp.right, sp.bottom, sp.top)
    adjust(figure, request.margins, *size)
    # a canvas too small for its labels keeps the axes at their limits (adjust's 0.4/0.6):
    # nothing moved, so no redraw (which would find them sticking out again)
    return (sp.left, sp.right, sp.bottom, sp.top) != before


def render(request: Request) -> Picture:
    """Draw the figure of `request` (its animated artists left out, as matplotlib leaves
    them out of every full draw) at the canvas's size."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg

    start = time.thread_time()
    try:
        figure = pickle.loads(request.figure)
        FigureCanvasAgg(figure)  # the figure's canvas while it draws
        figure._set_dpi(request.dpi, forward=False)  # the pickle keeps the 1x dpi
        figure.set_size_inches(*request.inches, forward=False)
        adjust(figure, request.margins, request.width, request.height)
        ax = figure.axes[0]
        draws = 0
        while True:
            # the window's figure's size to the last bit (232 and 231.99999999999997
            # pixels make buffers of 232 and 231 columns)
            renderer = RendererAgg(*request.pixels, request.dpi)
            figure.draw(renderer)
            draws += 1
            if not fit_margins(figure, ax, renderer, request):
                break
        pixels = renderer.buffer_rgba()
        rgba = bytes(pixels)
        height, width = pixels.shape[:2]
        error = ""
    except Exception:
        rgba, width, height, draws, error = b"", 0, 0, 0, traceback.format_exc()
    return Picture(
        plot=request.plot,
        version=request.version,
        width=width,
        height=height,
        rgba=rgba,
        margins=request.margins,
        fits=request.fits,
        draws=draws,
        cpu_ms=(time.thread_time() - start) * 1000,
        error=error,
    )


def warm() -> None:
    """Load what the first draw would: the fonts (matplotlib's font cache, `findfont`),
    the text layout, the Agg renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(2, 2), dpi=100)
    ax = figure.add_subplot()
    ax.set_title("warm", fontsize=9)
    ax.set_xlabel("x", fontsize=8)
    ax.tick_params(labelsize=8)
    ax.plot([0, 1], [0, 1])
    FigureCanvasAgg(figure).draw()


def send(stream: IO[bytes], message: object) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def receive(stream: IO[bytes]) -> Any:
    """The next message, or None at the end of the stream."""
    head = _exactly(stream, HEADER.size)
    if head is None:
        return None
    body = _exactly(stream, HEADER.unpack(head)[0])
    return None if body is None else pickle.loads(body)


def _exactly(stream: IO[bytes], size: int) -> bytes | None:
    parts = []
    while size:
        chunk = stream.read(size)
        if not chunk:
            return None
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


def main() -> None:
    import matplotlib

    matplotlib.use("Agg")
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write into the answers
    warm()
    send(stdout, "ready")
    while (request := receive(stdin)) is not None:
        send(stdout, render(request))


if __name__ == "__main__":
    # the answers' classes must be this module's, not __main__'s (the window unpickles them)
    from judgeapp.ui.plot_child import main as run

    run()
