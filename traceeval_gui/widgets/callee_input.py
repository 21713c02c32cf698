"""The answer to one baseline question: the callees given so far as removable chips, and a line edit that
completes the program's function names.

Enter adds the typed name (or a comma-separated list, split like a model's answer line). A name the program
does not define is kept as written (library calls exist) but its chip is amber, dashed and says so. Backspace
on an empty field removes the last chip; Enter on an empty field asks for the next question (`submitted`).
"No calls" is an answer with no callees, distinct from "not answered yet"; removing the last chip leaves
the question answered with no calls, since a given answer cannot be taken back, only changed.
`answer_changed(tuple)` is emitted on every add, remove and "no calls", never on `set_answer`.
"""
from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, QStringListModel, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QCompleter,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLayoutItem,
    QLineEdit,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.scoring.answers import split_callees
from traceeval_gui.theme.style import MUTED_TEXT, monospace_font
from traceeval_gui.widgets.answer_text import WARNING_TEXT

NOT_DEFINED = "not defined in this program"
NOT_ANSWERED_TEXT = "Not answered yet"
NO_CALLS_TEXT = "No calls"
COMPLETIONS_SHOWN = 12
CHIP_ROWS_SHOWN = 4  # rows of chips before the answer box scrolls
KNOWN_CHIP_STYLE = ("QFrame#calleeChip { background: #e8f0fe; border: 1px solid #c3d3f3; border-radius: 4px; }"
                    "QLabel { color: #1f2328; background: transparent; border: none; }")
UNKNOWN_CHIP_STYLE = ("QFrame#calleeChip { background: #fff4e0; border: 1px dashed #d39b2a; border-radius: 4px; }"
                      f"QLabel {{ color: {WARNING_TEXT}; background: transparent; border: none; }}")
CHIP_BUTTON_STYLE = ("QToolButton { border: none; color: #5f6368; padding: 0 2px; font-weight: bold; }"
                     "QToolButton:hover { color: #b3261e; }")
BOX_STYLE = "QScrollArea#answerBox { background: #ffffff; border: 1px solid #c9cdd2; border-radius: 4px; }"


class FlowLayout(QLayout):
    """Lays its widgets out left to right, wrapping to a new row when one does not fit."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 4) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self.setSpacing(spacing)

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), apply=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, apply=True)

    def sizeHint(self) -> QSize:
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        size = QSize(0, 0)
        for item in (item for item in self._items if not item.isEmpty()):
            size = size.expandedTo(item.minimumSize())
        margins = self.contentsMargins()
        return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    def _arrange(self, rect: QRect, apply: bool) -> int:
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        x, y, row_height, gap = area.x(), area.y(), 0, self.spacing()
        for item in self._items:
            if item.isEmpty():  # a hidden widget
                continue
            hint = item.sizeHint()
            width = min(hint.width(), max(area.width(), 1))
            if x + width > area.x() + area.width() and row_height:
                x, y, row_height = area.x(), y + row_height + gap, 0
            if apply:
                item.setGeometry(QRect(QPoint(x, y), QSize(width, hint.height())))
            x += width + gap
            row_height = max(row_height, hint.height())
        return y + row_height - rect.y() + margins.bottom()


class CalleeChip(QFrame):
    """One given callee: its name and a × that removes it; amber and dashed when the program lacks it."""

    remove_clicked = Signal(str)

    def __init__(self, name: str, known: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name, self.known = name, known
        self.setObjectName("calleeChip")
        self.setStyleSheet(KNOWN_CHIP_STYLE if known else UNKNOWN_CHIP_STYLE)
        self.label = QLabel(name if known else f"⚠ {name}")
        self.label.setFont(monospace_font(9))
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.button = QToolButton()
        self.button.setText("×")
        self.button.setAutoRaise(True)
        self.button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.button.setStyleSheet(CHIP_BUTTON_STYLE)
        self.button.setToolTip(f"Remove {name}")
        self.button.clicked.connect(self._on_button_clicked)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 1, 1, 1)
        layout.setSpacing(2)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.button)
        self.setToolTip(f"<code>{html.escape(name)}</code>" if known else
                        f"<code>{html.escape(name)}</code> is {NOT_DEFINED}: kept as written "
                        "(a library call, or a misspelt name?)")

    def sizeHint(self) -> QSize:
        margins = self.layout().contentsMargins()
        width = (self.label.fontMetrics().horizontalAdvance(self.label.text()) + self.button.sizeHint().width()
                 + margins.left() + margins.right() + self.layout().spacing() + 2)
        return QSize(width, max(self.label.sizeHint().height(), self.button.sizeHint().height()) + 2)

    def minimumSizeHint(self) -> QSize:
        return QSize(self.button.sizeHint().width() + 24, self.sizeHint().height())

    def _on_button_clicked(self) -> None:
        self.remove_clicked.emit(self.name)


class CalleeInput(QWidget):
    answer_changed = Signal(tuple)  # the callees now given (empty: "no calls")
    submitted = Signal()  # Enter on an empty field: the annotator is done with this question

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.names: tuple[str, ...] = ()
        self._known: set[str] = set()
        self._by_folded: dict[str, str] = {}
        self.callees: list[str] = []
        self.answered = False
        self.chips: list[CalleeChip] = []

        self.chip_area = QWidget()
        self.chip_area.setObjectName("chipArea")
        self.chip_area.setStyleSheet("QWidget#chipArea { background: #ffffff; }")
        self.chip_layout = FlowLayout(self.chip_area)
        self.chip_layout.setContentsMargins(6, 6, 6, 6)
        self.placeholder = QLabel(NOT_ANSWERED_TEXT)
        self.chip_layout.addWidget(self.placeholder)
        self.box = QScrollArea()
        self.box.setObjectName("answerBox")
        self.box.setStyleSheet(BOX_STYLE)
        self.box.setWidgetResizable(True)
        self.box.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.box.setWidget(self.chip_area)

        self.model = QStringListModel(self)
        self.completer = QCompleter(self.model, self)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.completer.setMaxVisibleItems(COMPLETIONS_SHOWN)
        self.completer.popup().setFont(monospace_font(9))
        self.completer.activated[str].connect(self._on_completer_activated)
        self.line_edit = QLineEdit()
        self.line_edit.setFont(monospace_font())
        self.line_edit.setPlaceholderText("Type a function name (completes) and press Enter")
        self.line_edit.setClearButtonEnabled(True)
        self.line_edit.setCompleter(self.completer)
        self.line_edit.returnPressed.connect(self._on_line_edit_return_pressed)
        self.line_edit.installEventFilter(self)
        self.no_calls_button = QToolButton()
        self.no_calls_button.setText(NO_CALLS_TEXT)
        self.no_calls_button.setCheckable(True)
        self.no_calls_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.no_calls_button.setToolTip("Answer this question with no calls (Ctrl+0)")
        self.no_calls_button.clicked.connect(self._on_no_calls_button_clicked)
        entry = QHBoxLayout()
        entry.setSpacing(6)
        entry.addWidget(self.line_edit, 1)
        entry.addWidget(self.no_calls_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self.box)
        layout.addLayout(entry)
        self.setFocusProxy(self.line_edit)
        self._rebuild_chips()

    # -- public -----------------------------------------------------------------------------
    def set_names(self, names: Iterable[str]) -> None:
        """The program's defined functions: what completes, and what is not flagged."""
        self.names = tuple(dict.fromkeys(names))
        self._known = set(self.names)
        folded: dict[str, list[str]] = {}
        for name in self.names:
            folded.setdefault(name.casefold(), []).append(name)
        self._by_folded = {key: group[0] for key, group in folded.items() if len(group) == 1}
        self.model.setStringList(list(self.names))
        self._rebuild_chips()

    def set_answer(self, callees: Sequence[str] | None) -> None:
        """Show a stored answer (None: not answered yet) without emitting `answer_changed`."""
        self.answered = callees is not None
        self.callees = list(dict.fromkeys(callees or ()))
        self.line_edit.clear()
        self._rebuild_chips()

    def answer(self) -> tuple[str, ...] | None:
        return tuple(self.callees) if self.answered else None

    def is_known(self, name: str) -> bool:
        return name in self._known

    def add_names(self, text: str) -> list[str]:
        """Add what was typed (one name or a comma-separated list); the names added."""
        added = []
        for name in split_callees(text):
            name = name if name in self._known else self._by_folded.get(name.casefold(), name)
            if name not in self.callees:
                self.callees.append(name)
                added.append(name)
        if added or not self.answered:
            self.answered = True
            self._changed()
        return added

    def remove(self, name: str) -> None:
        if name in self.callees:
            self.callees.remove(name)
            self._changed()

    def remove_last(self) -> None:
        if self.callees:
            self.remove(self.callees[-1])

    def set_no_calls(self) -> None:
        """Answer with no callees (dropping any given)."""
        if self.answered and not self.callees:
            self._rebuild_chips()
            return
        self.callees, self.answered = [], True
        self._changed()

    def commit_pending(self) -> None:
        """Add whatever is typed but not yet entered."""
        text = self.line_edit.text().strip()
        self.line_edit.clear()
        if text:
            self.add_names(text)

    def chip(self, name: str) -> CalleeChip | None:
        return next((chip for chip in self.chips if chip.name == name), None)

    # -- events -----------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.line_edit and event.type() == QEvent.Type.KeyPress:
            key_event: QKeyEvent = event
            if (key_event.key() == Qt.Key.Key_Backspace and not self.line_edit.text()
                    and not key_event.isAutoRepeat() and key_event.modifiers() == Qt.KeyboardModifier.NoModifier):
                self.remove_last()
                return True
        return super().eventFilter(watched, event)

    def _on_line_edit_return_pressed(self) -> None:
        text = self.line_edit.text().strip()
        if not text:
            self.submitted.emit()
            return
        self.line_edit.clear()
        self.add_names(text)

    def _on_completer_activated(self, name: str) -> None:
        """A completion picked with the mouse, or with Enter (which `returnPressed` has already added).
        The line edit puts the completion in the field after this, so the field is emptied afterwards."""
        if name:
            self.add_names(name)
        QTimer.singleShot(0, self._clear_entered_text)

    def _clear_entered_text(self) -> None:
        if self.line_edit.text().strip() in self.callees:
            self.line_edit.clear()

    def _on_no_calls_button_clicked(self) -> None:
        self.set_no_calls()
        self.line_edit.setFocus()

    def _on_chip_remove_clicked(self, name: str) -> None:
        self.remove(name)
        self.line_edit.setFocus()

    # -- drawing ----------------------------------------------------------------------------
    def _changed(self) -> None:
        self._rebuild_chips()
        self.answer_changed.emit(tuple(self.callees))

    def _rebuild_chips(self) -> None:
        for chip in self.chips:
            self.chip_layout.removeWidget(chip)
            chip.hide()
            chip.deleteLater()
        self.chips = []
        for name in self.callees:
            chip = CalleeChip(name, self.is_known(name), self.chip_area)
            chip.remove_clicked.connect(self._on_chip_remove_clicked)
            self.chip_layout.addWidget(chip)
            chip.show()  # now, not when the layout gets round to it: the box's height counts it
            self.chips.append(chip)
        no_calls = self.answered and not self.callees
        self.placeholder.setVisible(not self.callees)
        self.placeholder.setText(NO_CALLS_TEXT if no_calls else NOT_ANSWERED_TEXT)
        colour = "#3c4043" if no_calls else MUTED_TEXT
        self.placeholder.setStyleSheet(f"color: {colour}; font-style: italic;"
                                       + (" font-weight: bold;" if no_calls else ""))
        self.no_calls_button.setChecked(no_calls)
        unknown = [name for name in self.callees if not self.is_known(name)]
        self.box.setToolTip(f"{len(unknown)} name{'s' if len(unknown) != 1 else ''} {NOT_DEFINED}"
                            if unknown else "")
        self._fit_box()

    def _fit_box(self) -> None:
        width = max(self.box.viewport().width(), 200)
        row = self.placeholder.sizeHint().height() + 6
        wanted = self.chip_layout.heightForWidth(width)
        limit = 12 + CHIP_ROWS_SHOWN * (row + self.chip_layout.spacing())
        self.box.setFixedHeight(min(max(wanted, row + 12), limit) + 2)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_box()
