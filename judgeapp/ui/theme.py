"""The look: Fusion with a calm light palette, one stylesheet, fonts that exist everywhere.

Offscreen rendering (tests, `screenshot`) has no desktop theme to inherit, so everything the
window needs is set here; when the machine has no fonts at all, the DejaVu fonts that
matplotlib ships are registered so text never renders as empty boxes.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QColor, QFont, QFontDatabase, QPalette
from PySide6.QtWidgets import QApplication

# Colours of judgment states, used by the document list and the grade buttons.
UNJUDGED = QColor("#9aa0a6")
SKIPPED = QColor("#7a5cc2")
FLAGGED = QColor("#b26a00")
GRADE_COLOURS = ["#8a9099", "#5b8def", "#2f9e6e", "#1e7a4f", "#14532d"]
TOPIC_TERM = QColor("#fff1a8")
USER_TERM = QColor("#c9e7ff")
SEARCH_TERM = QColor("#ffc48a")

STYLESHEET = """
QMainWindow, QDialog { background: #f6f7f9; }
QTabWidget::pane { border: 1px solid #dde1e6; background: #ffffff; border-radius: 4px; }
QTabBar::tab { padding: 6px 16px; color: #4a5059; }
QTabBar::tab:selected { color: #111418; font-weight: 600; }
QTableView { gridline-color: #eceef1; selection-background-color: #dbe8fb;
             selection-color: #111418; alternate-background-color: #fafbfc; border: none; }
QHeaderView::section { background: #f1f3f5; border: none; border-bottom: 1px solid #dde1e6;
                       padding: 4px 6px; color: #4a5059; font-weight: 600; }
QLineEdit { padding: 4px 6px; border: 1px solid #cfd4da; border-radius: 4px; background: #fff; }
QLineEdit:focus { border-color: #5b8def; }
QPushButton { padding: 5px 12px; border: 1px solid #cfd4da; border-radius: 4px;
              background: #ffffff; color: #1d2127; }
QPushButton:hover { background: #eef3fb; border-color: #9db9ee; }
QPushButton:pressed { background: #dbe8fb; }
QPushButton:disabled { color: #a3a9b1; background: #f4f5f7; }
QPushButton[grade="true"] { padding: 8px 14px; font-weight: 600; text-align: left; }
QPushButton[grade="true"]:checked { background: #dbe8fb; border-color: #5b8def; color: #111418; }
QFrame#topicPanel { background: #fbfaf4; border: 1px solid #e9e4cc; border-radius: 4px; }
QLabel#topicTitle { font-size: 13pt; font-weight: 600; color: #111418; }
QLabel#docHeader, TextLine#docHeader { font-size: 11pt; font-weight: 600; color: #111418; }
QLabel#muted, TextLine#muted { color: #6b727c; }
QPlainTextEdit#documentText { border: none; background: #ffffff; padding: 4px 10px;
                              selection-background-color: #cfe0fb; }
QProgressBar { border: 1px solid #cfd4da; border-radius: 3px; background: #f1f3f5;
               text-align: center; height: 14px; }
QProgressBar::chunk { background: #5b8def; border-radius: 2px; }
QStatusBar { color: #4a5059; }
"""


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
    ensure_fonts()
    app.setStyle("Fusion")
    palette = QPalette()
    palette.setColor(QPalette.ColorRole.Window, QColor("#f6f7f9"))
    palette.setColor(QPalette.ColorRole.Base, QColor("#ffffff"))
    palette.setColor(QPalette.ColorRole.AlternateBase, QColor("#fafbfc"))
    palette.setColor(QPalette.ColorRole.Text, QColor("#1d2127"))
    palette.setColor(QPalette.ColorRole.WindowText, QColor("#1d2127"))
    palette.setColor(QPalette.ColorRole.Button, QColor("#ffffff"))
    palette.setColor(QPalette.ColorRole.ButtonText, QColor("#1d2127"))
    palette.setColor(QPalette.ColorRole.Highlight, QColor("#dbe8fb"))
    palette.setColor(QPalette.ColorRole.HighlightedText, QColor("#111418"))
    palette.setColor(QPalette.ColorRole.ToolTipBase, QColor("#ffffe8"))
    app.setPalette(palette)
    families = set(QFontDatabase.families())
    for family in ("Inter", "Segoe UI", "Noto Sans", "DejaVu Sans"):
        if family in families:
            font = QFont(family, 10)
            app.setFont(font)
            break
    app.setStyleSheet(STYLESHEET)


def reading_font() -> QFont:
    """The document text: a serif when there is one, slightly larger for long reading."""
    families = set(QFontDatabase.families())
    for family in ("Source Serif 4", "Noto Serif", "DejaVu Serif", "Georgia"):
        if family in families:
            return QFont(family, 11)
    font = QFont()
    font.setPointSize(11)
    return font
