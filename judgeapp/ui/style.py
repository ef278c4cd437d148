"""The window's look without a style sheet: Fusion under a QProxyStyle that draws what a
palette cannot say (rounded buttons and inputs, the 2-pixel focus frames, flat headers, the
topic panel, padded tabs), and that dresses named widgets (`muted`, `notice`, `topicTitle`,
...) with a palette and a font when they are polished.

A style sheet did all of this before, but Qt's style-sheet style resolves its rules for
every widget it polishes and every size it computes: building the team view took 39.7 ms
with the sheet against 4.7 ms without it (benchmarks/bench_widgets.py measures it now).
The colours are the scheme's (theme.COLOURS, see use_colours), read when a widget is drawn or dressed; a
change of scheme dresses every widget again (`restyle_all`).

Named looks, by object name (or `set_look`):

| name | look |
|---|---|
| topicTitle | 13 pt, semibold, strong text |
| docHeader | 11 pt, semibold, strong text |
| heading | semibold |
| muted, guidelines | muted text |
| notice | notice colour, semibold |
| error | notice colour |
| errorText | error colour |
| topicPanel (QFrame) | topic background, rounded 1-pixel border |
| documentText (QPlainTextEdit) | base background, 2-pixel focus frame, 8-pixel sides |

Every QTableView gets the 2-pixel focus frame; every QPushButton, QLineEdit, QComboBox and
QCheckBox shows its keyboard focus as a 2-pixel frame in the scheme's "focus" colour.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QCheckBox,
    QComboBox,
    QFrame,
    QHeaderView,
    QLineEdit,
    QPlainTextEdit,
    QProxyStyle,
    QPushButton,
    QScrollArea,
    QStatusBar,
    QStyle,
    QStyleFactory,
    QStyleOption,
    QStyleOptionButton,
    QStyleOptionComplex,
    QStyleOptionHeader,
    QStyleOptionProgressBar,
    QStyleOptionTab,
    QTableView,
    QWidget,
)

SEMIBOLD = QFont.Weight.DemiBold
# name -> (colour key or None, point size or None, semibold)
LOOKS: dict[str, tuple[str | None, int | None, bool]] = {
    "topicTitle": ("strong", 13, True),
    "docHeader": ("strong", 11, True),
    "heading": (None, None, True),
    "muted": ("muted", None, False),
    "guidelines": ("muted", None, False),
    "notice": ("notice", None, True),
    "error": ("notice", None, False),
    "errorText": ("error", None, False),
}
FOCUS_WIDTH = 2  # the keyboard focus frame, in device-independent pixels
FRAMED = "judgeappFramed"  # property: the widget's frame is the focus frame (tables, text)
BUTTON_PAD = (12, 5)  # QPushButton: horizontal, vertical padding inside a 1-pixel border
GRADE_PAD = (14, 8)  # the grade buttons
TAB_PAD, TAB_PAD_Y = 16, 6  # a tab's padding
HEADER_EXTRA = 14  # a table header's height over its text's: padding and a line under it
HEADER_EXTRA_X = 12  # and its width over Fusion's: 6 pixels more either side
CHECK_PAD = (3, 1)  # QCheckBox, inside a 2-pixel (focus) border

S = QStyle
State = QStyle.StateFlag


# the colour scheme in use: theme.COLOURS, bound when theme is imported (the same dict,
# changed in place when the scheme changes)
COLOURS: dict[str, str] = {}


def use_colours(colours: dict[str, str]) -> None:
    global COLOURS
    COLOURS = colours


def _c(key: str) -> QColor:
    return QColor(COLOURS[key])


def _rounded(painter: QPainter, rect: QRect, fill: QColor | None, border: QColor | None,
             width: int = 1, radius: float = 4.0) -> None:  # fmt: skip
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    half = width / 2
    r = QRectF(rect).adjusted(half, half, -half, -half)
    painter.setPen(QPen(border, width) if border is not None else Qt.PenStyle.NoPen)
    painter.setBrush(fill if fill is not None else Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(r, radius, radius)
    painter.restore()


def _is_grade(widget: QWidget | None) -> bool:
    return widget is not None and bool(widget.property("grade"))


def _plain_line_edit(widget: QWidget | None) -> bool:
    """A line edit of its own (not the editor inside a spin box or a combo box)."""
    if not isinstance(widget, QLineEdit):
        return False
    parent = widget.parentWidget()
    return not isinstance(parent, (QAbstractSpinBox, QComboBox))


def set_look(widget: QWidget, name: str) -> None:
    """Give a widget one of the named looks (LOOKS) now, as its object name."""
    widget.setObjectName(name)
    dress(widget)


def dress(widget: QWidget) -> None:
    """The palette, font and frame of a widget by its kind and object name; safe to repeat
    (a change of scheme dresses every widget again)."""
    name = widget.objectName()
    look = LOOKS.get(name)
    if look is not None:
        key, points, semibold = look
        parent = widget.parentWidget()
        font = QFont(parent.font() if parent is not None else QApplication.font())
        if points is not None:
            font.setPointSize(points)
        font.setWeight(SEMIBOLD if semibold else QFont.Weight.Normal)
        widget.setFont(font)
        palette = widget.palette()
        role = QPalette.ColorRole.WindowText
        palette.setColor(role, _c(key) if key else QApplication.palette().color(role))
        widget.setPalette(palette)
    if isinstance(widget, QHeaderView):
        font = QFont(widget.font())
        font.setWeight(SEMIBOLD)
        widget.setFont(font)
        palette = widget.palette()
        palette.setColor(QPalette.ColorRole.ButtonText, _c("header_text"))
        widget.setPalette(palette)
    elif isinstance(widget, QStatusBar):
        palette = widget.palette()
        palette.setColor(QPalette.ColorRole.WindowText, _c("header_text"))
        widget.setPalette(palette)
    elif isinstance(widget, QTableView) or name == "documentText":
        # a frame as wide as the focus frame, drawn only while the widget has the focus
        assert isinstance(widget, QFrame)
        widget.setProperty(FRAMED, True)
        widget.setFrameShape(QFrame.Shape.Box)
        widget.setFrameShadow(QFrame.Shadow.Plain)
        widget.setLineWidth(FOCUS_WIDTH)
        if isinstance(widget, QTableView):
            # Fusion draws the grid in the Window colour darkened by 20%: the scheme's grid
            # colour, from a Window 20% lighter (no styleHint override: Qt asks for style
            # hints thousands of times a view, each a call into Python)
            palette = widget.palette()
            palette.setColor(QPalette.ColorRole.Window, _c("grid").lighter(120))
            widget.setPalette(palette)
        if isinstance(widget, QPlainTextEdit):  # 8 pixels either side, 2 above and below
            widget.setViewportMargins(8, 2, 8, 2)
            widget.setAutoFillBackground(True)
            palette = widget.palette()
            palette.setColor(QPalette.ColorRole.Window, _c("base"))
            widget.setPalette(palette)
    elif name == "topicPanel" and isinstance(widget, QFrame):
        widget.setFrameShape(QFrame.Shape.Box)
        widget.setLineWidth(1)
    elif _is_grade(widget):
        font = QFont(widget.font())
        font.setWeight(SEMIBOLD)
        widget.setFont(font)
    elif _plain_line_edit(widget):
        assert isinstance(widget, QLineEdit)
        widget.setTextMargins(4, 2, 4, 2)


def see_through(scroll: QScrollArea) -> None:
    """The scroll area shows its parent's background (the topic panel's) behind its text."""
    scroll.viewport().setAutoFillBackground(False)
    inner = scroll.widget()
    if inner is not None:
        inner.setAutoFillBackground(False)


def restyle_all() -> None:
    """Dress every widget again (the colour scheme changed)."""
    for widget in QApplication.allWidgets():
        dress(widget)
        widget.update()


class Style(QProxyStyle):
    """Fusion, drawn in the scheme's colours with the paddings and focus frames the
    window's keyboard-first use needs."""

    def __init__(self) -> None:
        super().__init__(QStyleFactory.create("Fusion"))

    def polish(self, arg):  # QWidget, QPalette or QApplication
        result = super().polish(arg)
        if isinstance(arg, QWidget):
            dress(arg)
        return result

    # -- primitives --------------------------------------------------------------------------
    def drawPrimitive(self, element, option, painter, widget=None):
        if element == S.PrimitiveElement.PE_PanelButtonCommand and isinstance(widget, QPushButton):
            self._button_panel(option, painter)
            return
        if element == S.PrimitiveElement.PE_FrameFocusRect and isinstance(
            widget, (QPushButton, QCheckBox, QComboBox, QLineEdit)
        ):
            return  # their own frames show the focus
        if element == S.PrimitiveElement.PE_PanelLineEdit and _plain_line_edit(widget):
            focus = bool(option.state & State.State_HasFocus)
            _rounded(
                painter, option.rect, _c("base"), _c("focus" if focus else "input_border"),
                FOCUS_WIDTH if focus else 1,
            )  # fmt: skip
            return
        if element == S.PrimitiveElement.PE_FrameTabWidget:
            _rounded(painter, option.rect, _c("base"), _c("border"))
            return
        if element == S.PrimitiveElement.PE_PanelTipLabel:
            painter.fillRect(option.rect, _c("tooltip"))
            painter.setPen(_c("border"))
            painter.drawRect(option.rect.adjusted(0, 0, -1, -1))
            return
        super().drawPrimitive(element, option, painter, widget)

    def _button_panel(self, option: QStyleOption, painter: QPainter) -> None:
        state = option.state
        fill, border, width = _c("base"), _c("input_border"), 1
        if not state & State.State_Enabled:
            fill = _c("disabled_bg")
        elif state & State.State_Sunken:
            fill = _c("pressed")
        elif state & State.State_On:
            fill, border = _c("pressed"), _c("accent")
        elif state & State.State_MouseOver:
            fill, border = _c("hover"), _c("hover_border")
        if state & State.State_HasFocus and state & State.State_Enabled:
            border, width = _c("focus"), FOCUS_WIDTH
        _rounded(painter, option.rect, fill, border, width)

    # -- controls ----------------------------------------------------------------------------
    def drawControl(self, element, option, painter, widget=None):
        E = S.ControlElement
        if element == E.CE_PushButtonLabel and isinstance(option, QStyleOptionButton):
            self._button_label(option, painter, widget)
            return
        if element == E.CE_TabBarTabLabel and isinstance(option, QStyleOptionTab):
            tab = QStyleOptionTab(option)
            selected = bool(option.state & State.State_Selected)
            tab.palette.setColor(
                QPalette.ColorRole.WindowText, _c("strong" if selected else "header_text")
            )
            painter.save()
            if selected:
                font = QFont(painter.font())
                font.setWeight(SEMIBOLD)
                painter.setFont(font)
            super().drawControl(element, tab, painter, widget)
            painter.restore()
            return
        if element == E.CE_HeaderSection and isinstance(option, QStyleOptionHeader):
            painter.fillRect(option.rect, _c("header"))
            painter.setPen(_c("border"))
            r = option.rect
            painter.drawLine(r.left(), r.bottom(), r.right(), r.bottom())
            return
        if element == E.CE_ShapedFrame and widget is not None:
            if widget.property(FRAMED):
                if option.state & State.State_HasFocus:
                    _rounded(painter, option.rect, None, _c("focus"), FOCUS_WIDTH, 0)
                return
            if widget.objectName() == "topicPanel":
                _rounded(painter, option.rect, _c("topic_bg"), _c("topic_border"))
                return
        if element == E.CE_CheckBox and isinstance(option, QStyleOptionButton):
            inner = QStyleOptionButton(option)
            pad_x, pad_y = CHECK_PAD[0] + FOCUS_WIDTH, CHECK_PAD[1] + FOCUS_WIDTH
            inner.rect = option.rect.adjusted(pad_x, pad_y, -pad_x, -pad_y)
            super().drawControl(element, inner, painter, widget)
            if option.state & State.State_HasFocus:
                _rounded(painter, option.rect, None, _c("focus"), FOCUS_WIDTH)
            return
        if element == E.CE_ProgressBarGroove:
            _rounded(painter, option.rect, _c("header"), _c("input_border"), 1, 3)
            return
        if (
            element == E.CE_ProgressBarContents
            and isinstance(option, QStyleOptionProgressBar)
            and option.maximum > option.minimum
        ):
            span = option.maximum - option.minimum
            done = (option.progress - option.minimum) / span
            inner = option.rect.adjusted(1, 1, -1, -1)
            inner.setWidth(round(inner.width() * max(0.0, min(done, 1.0))))
            if inner.width() > 0:
                _rounded(painter, inner, _c("accent"), None, 1, 2)
            return
        super().drawControl(element, option, painter, widget)

    def _button_label(
        self, option: QStyleOptionButton, painter: QPainter, widget: QWidget | None
    ) -> None:
        label = QStyleOptionButton(option)
        if option.state & State.State_On and option.state & State.State_Enabled:
            label.palette.setColor(QPalette.ColorRole.ButtonText, _c("strong"))
        if not _is_grade(widget) or not option.icon.isNull():
            super().drawControl(S.ControlElement.CE_PushButtonLabel, label, painter, widget)
            return
        # the grade buttons: text at the left, after the padding
        pad = GRADE_PAD[0] + 1
        rect = option.rect.adjusted(pad, 0, -pad, 0)
        role = QPalette.ColorRole.ButtonText
        self.drawItemText(
            painter, rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            label.palette, bool(option.state & State.State_Enabled), option.text, role,
        )  # fmt: skip

    def drawComplexControl(self, control, option, painter, widget=None):
        super().drawComplexControl(control, option, painter, widget)
        if (
            control == S.ComplexControl.CC_ComboBox
            and isinstance(option, QStyleOptionComplex)
            and option.state & State.State_HasFocus
        ):
            _rounded(painter, option.rect, None, _c("focus"), FOCUS_WIDTH)

    # -- sizes and hints ---------------------------------------------------------------------
    def sizeFromContents(self, kind, option, size, widget=None):
        C = S.ContentsType
        if kind == C.CT_PushButton and isinstance(option, QStyleOptionButton):
            pad_x, pad_y = GRADE_PAD if _is_grade(widget) else BUTTON_PAD
            return QSize(size.width() + 2 * (pad_x + 1), size.height() + 2 * (pad_y + 1))
        if kind == C.CT_TabBarTab and isinstance(option, QStyleOptionTab):
            # the text, as wide as it is in semibold (when the tab is selected), padded
            bold = QFont(widget.font() if widget is not None else QApplication.font())
            plain = QFontMetrics(bold)
            bold.setWeight(SEMIBOLD)
            wide = QFontMetrics(bold).horizontalAdvance(option.text)
            width = max(wide, plain.horizontalAdvance(option.text)) + 2 * TAB_PAD
            return QSize(width, plain.height() + 2 * TAB_PAD_Y)
        if kind == C.CT_HeaderSection and isinstance(option, QStyleOptionHeader):
            base = super().sizeFromContents(kind, option, size, widget)
            font = widget.font() if widget is not None else QApplication.font()
            height = QFontMetrics(font).height() + HEADER_EXTRA
            return QSize(base.width() + HEADER_EXTRA_X, height)
        if kind == C.CT_CheckBox:
            pad_x, pad_y = CHECK_PAD[0] + FOCUS_WIDTH, CHECK_PAD[1] + FOCUS_WIDTH
            base = super().sizeFromContents(kind, option, size, widget)
            return QSize(base.width() + 2 * pad_x, base.height() + 2 * pad_y)
        return super().sizeFromContents(kind, option, size, widget)
