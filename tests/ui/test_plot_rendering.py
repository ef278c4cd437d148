"""The dashboard's full plot draws are made by a child process (judgeapp.ui.plot_child) and
shown by the window: the picture is the one a draw in the window's process makes, and when
the child is gone the plots are drawn in the window's process instead."""

from __future__ import annotations

import numpy as np
import pytest

from judgeapp.ui.plot_child import render
from judgeapp.ui.plot_rendering import PlotRenderer

TIMEOUT = 60_000


@pytest.fixture
def renderer(qtbot):
    own = PlotRenderer()  # a child of its own: the application's is left alone
    yield own
    own.stop()


def _shown_plot(qtbot, renderer):
    from judgeapp.ui.dashboard.curve_plots import NdcgCutoffPlot

    plot = NdcgCutoffPlot()
    plot.renderer = renderer  # before anything is drawn
    plot.configure(["a", "b"], [1, 5, 10, 100])
    qtbot.addWidget(plot.widget)
    plot.widget.resize(420, 320)
    plot.widget.show()
    qtbot.waitExposed(plot.widget)
    return plot


def test_the_child_draws_what_the_window_would(qtbot, renderer):
    plot = _shown_plot(qtbot, renderer)
    qtbot.waitUntil(lambda: not plot.pending, timeout=TIMEOUT)
    assert renderer.rendered >= 1 and renderer.in_process == 0
    shown = plot.canvas.picture
    assert shown is not None
    pixels = np.asarray(shown.buffer_rgba())
    assert pixels.shape[:2] == (int(plot.figure.bbox.height), int(plot.figure.bbox.width))
    # the same figure drawn here, without its animated artists: the child's picture under
    # the curves the window drew over it is the same, pixel for pixel, outside the axes
    request = plot.render_request()
    assert request is not None
    here = render(request)
    assert not here.error and (here.width, here.height) == (pixels.shape[1], pixels.shape[0])
    mine = np.frombuffer(here.rgba, dtype=np.uint8).reshape(pixels.shape)
    x0, y0, x1, y1 = (int(v) for v in plot.ax.bbox.extents)
    outside = np.ones(pixels.shape[:2], dtype=bool)
    outside[pixels.shape[0] - y1 : pixels.shape[0] - y0, x0:x1] = False
    assert (mine[outside] == pixels[outside]).all()
    assert len(np.unique(pixels.reshape(-1, 4), axis=0)) > 10  # ticks, labels: not blank


def test_without_the_child_the_plots_are_drawn_here(qtbot, renderer):
    plot = _shown_plot(qtbot, renderer)
    qtbot.waitUntil(lambda: not plot.pending, timeout=TIMEOUT)
    child = renderer._child
    assert child is not None
    child.kill()
    child.wait()
    qtbot.waitUntil(lambda: renderer._child is None, timeout=TIMEOUT)  # noticed
    before = plot.full_draws
    plot.refresh(full=True)
    qtbot.waitUntil(lambda: not plot.pending, timeout=TIMEOUT)
    assert plot.full_draws > before and renderer.in_process >= 1
