"""The look: Fusion with a calm palette, light or dark as the system's colour scheme is (or
JUDGEAPP_THEME=light|dark), drawn by judgeapp.ui.style (no style sheet: it made building a
view several times dearer), fonts that exist everywhere.

Offscreen rendering (tests, `screenshot`) has no desktop theme to inherit, so everything the
window needs is set here; when the machine has no fonts at all, the DejaVu fonts that
matplotlib ships are registered so text never renders as empty boxes.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QPalette
from PySide6.QtWidgets import QApplication

from judgeapp.ui.style import Style, restyle_all, use_colours

# Colours of judgment states (the document list, the topic table's relevant counts) are
# per scheme, in LIGHT and DARK: "unjudged", "skipped", "flagged" and "grade0".."grade4"
# (higher grades clamp to grade4). Each is readable (WCAG >= 4.5:1) on the list's base and
# alternate rows of its scheme; the hues are the same in both (grey, purple, amber, blue,
# greens that gain weight with the grade), darker on light, lighter on dark.
GRADE_STEPS = 5
# the focus frame (QLineEdit, QPushButton, ... with the keyboard focus; judgeapp.ui.style): "focus" in LIGHT
# and DARK, >= 3:1 against the window and base (WCAG 1.4.11, non-text contrast)
# highlights in the document: light backgrounds, always with dark text on them
TOPIC_TERM = QColor("#fff1a8")
USER_TERM = QColor("#c9e7ff")
SEARCH_TERM = QColor("#ffc48a")
HIGHLIGHT_TEXT = QColor("#111418")

LIGHT = {
    "window": "#f6f7f9",
    "base": "#ffffff",
    "alt": "#fafbfc",
    "text": "#1d2127",
    "strong": "#111418",
    "muted": "#6b727c",
    "border": "#dde1e6",
    "input_border": "#cfd4da",
    "header": "#f1f3f5",
    "header_text": "#4a5059",
    "hover": "#eef3fb",
    "hover_border": "#9db9ee",
    "pressed": "#dbe8fb",
    "accent": "#5b8def",
    "selection": "#dbe8fb",
    "topic_bg": "#fbfaf4",
    "topic_border": "#e9e4cc",
    "disabled": "#a3a9b1",
    "disabled_bg": "#f4f5f7",
    "grid": "#eceef1",
    "tooltip": "#ffffe8",
    "notice": "#8a4b00",
    "up_tint": "#e3f4ea",
    "down_tint": "#fbe6e4",
    "track": "#e6e9ee",  # the empty part of a progress bar in a table
    "link": "#2a5fcf",
    "error": "#b3261e",
    "focus": "#2a5fcf",
    "unjudged": "#697077",
    "skipped": "#7456c9",
    "flagged": "#985f0a",
    "grade0": "#4b525b",
    "grade1": "#2366ea",
    "grade2": "#237a55",
    "grade3": "#1a6644",
    "grade4": "#12472a",
}
DARK = {
    "window": "#1f2227",
    "base": "#17191d",
    "alt": "#1c1f23",
    "text": "#e3e6ea",
    "strong": "#f4f6f8",
    "muted": "#9aa1ab",
    "border": "#343941",
    "input_border": "#4a505a",
    "header": "#262a30",
    "header_text": "#b9c0c9",
    "hover": "#2a3442",
    "hover_border": "#5b7fbf",
    "pressed": "#2f4566",
    "accent": "#7aa5f5",
    "selection": "#2f4566",
    "topic_bg": "#26241c",
    "topic_border": "#4a4532",
    "disabled": "#6b717a",
    "disabled_bg": "#22252a",
    "grid": "#2a2e34",
    "tooltip": "#2a2e34",
    "notice": "#f0b45c",
    "up_tint": "#1f3b2c",
    "down_tint": "#47241f",
    "track": "#343941",
    "link": "#7aa5f5",
    "error": "#f28b82",
    "focus": "#8fb4ff",
    "unjudged": "#9aa0a6",
    "skipped": "#a08ae0",
    "flagged": "#d0861a",
    "grade0": "#8a9099",
    "grade1": "#6f9cf2",
    "grade2": "#34a874",
    "grade3": "#4cc48a",
    "grade4": "#8be0b0",
}
COLOURS = dict(LIGHT)  # the scheme in use (apply_theme switches it)
# the style draws in it from the start: a window built before apply_theme ran (an application
# made elsewhere, as pytest-qt's) draws and dresses in the light scheme, not a KeyError
use_colours(COLOURS)


def colour(key: str) -> QColor:
    """A colour of the scheme in use, by its key in LIGHT / DARK."""
    return QColor(COLOURS[key])


def grade_colour(grade: int) -> QColor:
    """The text colour of a grade in the scheme in use (grades above the last step share
    the last colour, negative ones the first)."""
    return colour(f"grade{max(0, min(grade, GRADE_STEPS - 1))}")


def scheme(app: QApplication) -> str:
    """ "dark" or "light": JUDGEAPP_THEME when set, else the system's (Qt 6.5 and newer
    know it; older ones and offscreen rendering say light)."""
    chosen = os.environ.get("JUDGEAPP_THEME", "").strip().lower()
    if chosen in ("light", "dark"):
        return chosen
    hints = app.styleHints()
    if hasattr(hints, "colorScheme") and hints.colorScheme() == Qt.ColorScheme.Dark:
        return "dark"
    return "light"


def is_dark() -> bool:
    return COLOURS["window"] == DARK["window"]


def ensure_fonts() -> None:
    """Register matplotlib's DejaVu fonts when the system offers none (bare containers)."""
    if QFontDatabase.families():
        return
    try:
        import matplotlib

        ttf = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    except Exception:
        return
    for font in sorted(ttf.glob("DejaVuSans*.ttf")):
        QFontDatabase.addApplicationFont(str(font))


def apply_theme(app: QApplication) -> None:
    """Fusion drawn by judgeapp.ui.style, the palette of the system's colour scheme (light or
    dark); a change of the system's scheme while the program runs is followed."""
    ensure_fonts()
    if not isinstance(app.style(), Style):
        app.setStyle(Style())
    _apply_scheme(app)
    families = set(QFontDatabase.families())
    for family in ("Inter", "Segoe UI", "Noto Sans", "DejaVu Sans"):
        if family in families:
            font = QFont(family, 10)
            app.setFont(font)
            break
    hints = app.styleHints()
    if hasattr(hints, "colorSchemeChanged") and not app.property("judgeappFollowsScheme"):
        app.setProperty("judgeappFollowsScheme", True)  # once per application
        hints.colorSchemeChanged.connect(lambda _scheme: _apply_scheme(app))


def _apply_scheme(app: QApplication) -> None:
    colours = DARK if scheme(app) == "dark" else LIGHT
    COLOURS.clear()
    COLOURS.update(colours)
    role = QPalette.ColorRole
    palette = QPalette()
    for r, key in (
        (role.Window, "window"),
        (role.Base, "base"),
        (role.AlternateBase, "alt"),
        (role.Text, "text"),
        (role.WindowText, "text"),
        (role.Button, "base"),
        (role.ButtonText, "text"),
        (role.Highlight, "selection"),
        (role.HighlightedText, "strong"),
        (role.ToolTipBase, "tooltip"),
        (role.ToolTipText, "text"),
        (role.PlaceholderText, "muted"),
        (role.Link, "link"),
    ):
        palette.setColor(r, QColor(colours[key]))
    for r, key in (
        (role.Text, "disabled"),
        (role.WindowText, "disabled"),
        (role.ButtonText, "disabled"),
    ):
        palette.setColor(QPalette.ColorGroup.Disabled, r, QColor(colours[key]))
    app.setPalette(palette)
    restyle_all()  # the named looks in the new colours


def reading_font() -> QFont:
    """The document text: a serif when there is one, slightly larger for long reading."""
    families = set(QFontDatabase.families())
    for family in ("Source Serif 4", "Noto Serif", "DejaVu Serif", "Georgia"):
        if family in families:
            return QFont(family, 11)
    font = QFont()
    font.setPointSize(11)
    return font
