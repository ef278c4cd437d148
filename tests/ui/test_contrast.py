"""Contrast (issue 30, item 9): every text colour of both themes, against the background it
is drawn on, reaches WCAG 2.x's 4.5:1 for normal text (success criterion 1.4.3).

The ratio is computed here from the WCAG 2.x definitions (relative luminance of sRGB with
the 0.04045 threshold; (L1 + 0.05) / (L2 + 0.05)), not taken from the code under test.
Disabled controls are exempt in WCAG ("text that is part of an inactive user interface
component") and are not checked. The judgment states are also checked as the document list
really shows them: the model's foreground colours under each applied theme, on the
palette's base and the alternate-row colour.
"""

from __future__ import annotations

import pytest

from judgeapp.records import DEFAULT_SCALE, GradeInfo
from judgeapp.services.rows import QueueItem

MINIMUM = 4.5


def relative_luminance(hex_colour: str) -> float:
    """WCAG 2.x relative luminance of an sRGB colour "#rrggbb"."""
    text = hex_colour.lstrip("#")
    assert len(text) == 6, hex_colour
    channels = []
    for i in (0, 2, 4):
        c = int(text[i : i + 2], 16) / 255
        channels.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    r, g, b = channels
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_the_formula_gives_the_known_ratios():
    # black on white is 21:1; a colour on itself 1:1; #767676 on white is the well-known
    # lightest grey that passes 4.5:1 (4.54), #777777 fails it (4.48)
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#5b8def", "#5b8def") == pytest.approx(1.0)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


STATES = ("unjudged", "skipped", "flagged", "grade0", "grade1", "grade2", "grade3", "grade4")

# (text colour, background it is drawn on), by the keys of theme.LIGHT / theme.DARK; where
# judgeapp.ui.style or the code draws it is in the comment
PAIRS = [
    ("text", "base"),  # tables, line edits, the document, buttons
    ("text", "alt"),  # alternate table rows
    ("text", "window"),  # labels, check boxes
    ("text", "hover"),  # a button under the mouse
    ("text", "tooltip"),
    ("text", "topic_bg"),  # the topic's description and narrative
    ("text", "up_tint"),  # dashboard cells that went up / down
    ("text", "down_tint"),
    ("strong", "base"),
    ("strong", "window"),  # the document header, the selected tab
    ("strong", "topic_bg"),  # the topic title
    ("strong", "selection"),  # selected rows and text
    ("strong", "pressed"),  # a checked grade button
    ("muted", "window"),  # QLabel#muted: position line, progress, summaries
    ("muted", "base"),  # placeholder text in line edits
    ("muted", "topic_bg"),  # the guidelines
    ("header_text", "header"),  # table headers
    ("header_text", "window"),  # tabs, the status bar
    ("notice", "window"),  # why a key recorded nothing
    ("error", "window"),  # a failed import in the progress dialog
    ("link", "base"),  # links in rich text
    ("link", "window"),
] + [(state, bg) for state in STATES for bg in ("base", "alt")]  # the document list


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_text_colour_of_the_theme_reaches_4_5_to_1(scheme):
    from judgeapp.ui import theme

    colours = theme.LIGHT if scheme == "light" else theme.DARK
    assert set(colours) == set(theme.LIGHT) == set(theme.DARK)  # each scheme has its own
    low = {
        f"{fg} on {bg} ({colours[fg]} on {colours[bg]})": round(
            contrast(colours[fg], colours[bg]), 2
        )
        for fg, bg in PAIRS
        if contrast(colours[fg], colours[bg]) < MINIMUM
    }
    assert not low, low
    # the focus frame is not text: WCAG 1.4.11 asks 3:1 against what is next to it
    for bg in ("window", "base", "alt", "hover"):
        assert contrast(colours["focus"], colours[bg]) >= 3.0, (scheme, bg)
    # the highlighted terms in the document: the same dark text on light marks in both
    for mark in (theme.TOPIC_TERM, theme.USER_TERM, theme.SEARCH_TERM):
        assert contrast(theme.HIGHLIGHT_TEXT.name(), mark.name()) >= MINIMUM


def test_the_judgment_states_keep_their_hues_and_stay_apart():
    """Per scheme the states differ from each other (the list tells them apart by colour as
    well as by text), and each state has the same hue family in both schemes."""
    from PySide6.QtGui import QColor

    from judgeapp.ui import theme

    for colours in (theme.LIGHT, theme.DARK):
        values = [colours[s] for s in STATES]
        assert len(set(values)) == len(values), values
    for state in ("skipped", "flagged", "grade1", "grade2", "grade3", "grade4"):
        light, dark = QColor(theme.LIGHT[state]), QColor(theme.DARK[state])
        assert abs(light.hslHue() - dark.hslHue()) <= 25, (state, light.name(), dark.name())
    for state in ("unjudged", "grade0"):  # greys
        assert QColor(theme.LIGHT[state]).hslSaturation() < 40
        assert QColor(theme.DARK[state]).hslSaturation() < 40


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_document_list_draws_each_state_readably(qtbot, monkeypatch, scheme):
    """The colours the list model hands to the view, with the theme applied as the app
    applies it, against the palette's base and the alternate rows."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication

    from judgeapp.ui import theme
    from judgeapp.ui.models import PoolTableModel

    monkeypatch.setenv("JUDGEAPP_THEME", scheme)
    app = QApplication.instance()
    theme.apply_theme(app)
    try:
        assert theme.is_dark() == (scheme == "dark")
        model = PoolTableModel()
        scale = [*DEFAULT_SCALE, GradeInfo(7, "Off the scale", "7")]
        model.set_scale(scale)
        items = [
            QueueItem(1, "unjudged"),
            QueueItem(2, "skipped"),
            QueueItem(3, "flag", None, True),
        ]
        items += [QueueItem(10 + g.grade, f"g{g.grade}", g.grade) for g in scale]
        model.set_items(items, blind=True)
        model.set_marks({2}, set())
        base = app.palette().color(QPalette.ColorRole.Base).name()
        alt = theme.COLOURS["alt"]
        seen = {}
        for row, item in enumerate(items):
            brush = model.data(
                model.index(row, PoolTableModel.STATE), Qt.ItemDataRole.ForegroundRole
            )
            seen[item.docno] = brush.color().name()
        for docno, fg in seen.items():
            for bg in (base, alt):
                assert contrast(fg, bg) >= MINIMUM, (scheme, docno, fg, bg, contrast(fg, bg))
        # the states look different from one another
        assert len({seen["unjudged"], seen["skipped"], seen["flag"], seen["g0"]}) == 4
        # the system's scheme changes while the list is shown: its rows take the new colours
        other = "light" if scheme == "dark" else "dark"
        monkeypatch.setenv("JUDGEAPP_THEME", other)
        theme.apply_theme(app)
        index = model.index(len(items) - 2, PoolTableModel.STATE)  # grade 3
        brush = model.data(index, Qt.ItemDataRole.ForegroundRole)
        wanted = (theme.DARK if other == "dark" else theme.LIGHT)["grade3"]
        assert brush.color().name() == wanted != seen["g3"]
    finally:
        monkeypatch.undo()  # the theme the other tests run with
        theme.apply_theme(app)
