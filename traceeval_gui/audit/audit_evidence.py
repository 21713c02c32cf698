"""The evidence an annotator weighs for one audited edge: what program it is, the caller's body with
the call-site lines tinted, the callee's definition, and what the latest trace saw.

Code is shown span by span (the function, not its file) in `CodeSpanView`, numbered with the file's
line numbers and highlighted with pygments. Call-site lines come from `InstanceDetail.call_sites`:
the lines the latest trace witnessed when it saw the call, else candidates from a static look at the
caller's body. Audit edges carry normalised names, exactly as the overlay does, so the detail's
`place` and `trace_evidence` look them up directly.
"""
from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QColor, QPainter, QPolygon, QTextCursor
from PySide6.QtWidgets import QLabel, QSizePolicy, QStackedWidget, QVBoxLayout, QWidget

from core.audit.audits import AuditItem
from core.dataset.workspace import Workspace
from core.languages import registry
from core.records import Node
from core.report.palette import EDGE_STYLES
from traceeval_gui.item_models.instance_detail import ClassifiedEdge, InstanceDetail, InstanceDetailLoader
from traceeval_gui.theme.style import MUTED_TEXT, is_dark
from traceeval_gui.theme.trace_text import local_time
from traceeval_gui.widgets.code_highlighter import PygmentsHighlighter
from traceeval_gui.widgets.code_view import NumberedCodeView
from traceeval_gui.widgets.form_parts import pane_splitter, titled_pane

CALL_SITE_TINTS = {False: QColor("#ffe9a8"), True: QColor("#4a3b12")}  # by is_dark(): the lines a call happens on
CALL_SITE_MARKS = {False: QColor("#b26a00"), True: QColor("#ffb74d")}  # the gutter's arrow
CLASS_TITLES = {"TP": "in the ground truth, found by the model", "FP": "predicted, not in the ground truth",
                "FN": "in the ground truth, missed by the model", "truth": "ground-truth edge"}
NO_TRACE = "No trace run yet (Trace ▸ Trace This Program, F5, in the main window)"
BLIND_NOTE = "class hidden until your verdict (blind audit)"
NOT_DEFINED = "not defined in the program (a library call, or a hallucinated name)"


@dataclass(frozen=True)
class TraceFinding:
    """What the latest trace says about one edge, in words, and whether it saw the call."""

    text: str
    seen: bool | None  # None: no trace run


def trace_finding(ws: Workspace, detail: InstanceDetail, caller: str, callee: str) -> TraceFinding:
    runs = ws.run_rows(detail.instance.key)
    if not runs:
        return TraceFinding(NO_TRACE, None)
    when = local_time(runs[0].started_at)
    evidence = detail.overlay.trace_evidence.get((caller, callee))
    if evidence is None:
        return TraceFinding(f"The latest trace ({when}, {runs[0].status}) never saw this call", False)
    times = f"{evidence.count:,}×" if evidence.count_known else f"at least {evidence.count:,}×"
    lines = evidence.lines
    where = f" from line{'s' if len(lines) != 1 else ''} {', '.join(map(str, lines))}" if lines else ""
    return TraceFinding(f"Latest trace ({when}): called {times}{where}", True)


class CodeSpanView(NumberedCodeView):
    """A read-only stretch of one file (a function's span), numbered as in the file, with some lines
    tinted and marked in the gutter (call sites). It never takes keyboard focus: the audit's keys
    stay with the window."""

    marked: tuple[int, ...] = ()  # file lines tinted as call sites (a palette change may come before __init__ ends)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.highlighter: PygmentsHighlighter | None = None

    def show_span(self, text: str, language: str, first_line: int = 1, marked: Iterable[int] = ()) -> None:
        """Show `text` (lines `first_line`… of a file), tinting the file lines `marked`; scrolls so the
        first marked line is in view."""
        if self.highlighter is not None:
            self.highlighter.setDocument(None)
            self.highlighter.deleteLater()
            self.highlighter = None
        self.first_line = first_line
        self.setPlainText(text)
        self.highlighter = PygmentsHighlighter(self.document(), language)
        last = first_line + self.blockCount() - 1
        self.marked = tuple(sorted(line for line in set(marked) if first_line <= line <= last))
        self._on_document_block_count_changed()
        self._apply_selections()
        self.setTextCursor(QTextCursor(self.document()))
        # without wrapping the scroll bar counts lines: bring the first call site into view, with context
        shown = max(self.viewport().height() // max(self.fontMetrics().height(), 1), 1)
        offset = self.marked[0] - first_line if self.marked else 0
        self.verticalScrollBar().setValue(0 if offset < shown - 2 else offset - 3)

    def marked_lines(self) -> list[int]:
        """The file lines the view tints (read back from its extra selections)."""
        return [self.first_line + s.cursor.blockNumber() for s in self.extraSelections()]

    def _apply_selections(self) -> None:
        self.tint_lines({line: CALL_SITE_TINTS[is_dark(self.palette())] for line in self.marked})

    def follow_palette(self) -> None:
        super().follow_palette()
        self._apply_selections()

    # -- gutter ---------------------------------------------------------------------------
    def gutter_width(self) -> int:
        return super().gutter_width() + 8  # room for the call-site arrow

    def paint_line(self, painter: QPainter, line: int, top: int, line_height: int, width: int) -> None:
        marked = line in self.marked
        self.paint_number(painter, line, top, line_height, width - 6, marked)
        if marked:  # a small arrow: "the call happens here"
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(CALL_SITE_MARKS[is_dark(self.palette())])
            middle = top + line_height // 2
            painter.drawPolygon(QPolygon([QPoint(3, middle - 4), QPoint(9, middle), QPoint(3, middle + 4)]))


class AuditEvidencePanel(QWidget):
    """Header, trace finding, caller body and callee definition of one audited edge."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._loader = InstanceDetailLoader()
        self.detail: InstanceDetail | None = None
        self.item: AuditItem | None = None
        self.finding: TraceFinding | None = None

        self.header_label = _rich_label()
        self.header_label.setContentsMargins(10, 8, 10, 2)
        self.trace_label = _rich_label()
        self.trace_label.setContentsMargins(10, 0, 10, 6)
        self.caller_title = _section_label()
        self.caller_view = CodeSpanView()
        self.caller_message = _message_label()
        self.caller_pages = _pages(self.caller_view, self.caller_message)
        self.callee_title = _section_label()
        self.callee_view = CodeSpanView()
        self.callee_message = _message_label()
        self.callee_pages = _pages(self.callee_view, self.callee_message)
        panes = (titled_pane(self.caller_title, self.caller_pages), titled_pane(self.callee_title, self.callee_pages))
        self.splitter = pane_splitter(Qt.Orientation.Vertical, panes, (3, 2))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.header_label)
        layout.addWidget(self.trace_label)
        layout.addWidget(self.splitter, 1)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            restyle(self.caller_title, self.callee_title, self.caller_message, self.callee_message)
        super().changeEvent(event)

    def forget(self, instance_key: str | None = None) -> None:
        """Drop loaded programs (one, or all): a new trace run or a reopened workspace."""
        if instance_key is None or (self.detail is not None and self.detail.instance.key == instance_key):
            self.detail = None
        if instance_key is None:
            self._loader.clear()

    def show_item(self, ws: Workspace, item: AuditItem, model: str = "", reveal: bool = True) -> None:
        """Show `item`'s evidence; `reveal` False keeps its class and model out of sight (a blind audit, before
        the annotator's verdict): the code, call sites and trace are the same either way."""
        self.item = item
        if self.detail is None or self.detail.instance.key != item.instance_key or self.detail.model != (model or None):
            self.detail = self._loader.load(ws, item.instance_key, model or None, (model,) if model else ())
        self.header_label.setText(header_html(item, model if reveal else None))
        if self.detail is None:
            self.finding = None
            self.trace_label.setText(f"<span style='color:#c62828'>Program {html.escape(item.instance_key)} is not "
                                     "in this workspace's dataset any more.</span>")
            self._show_missing(self.caller_pages, self.caller_message, self.caller_title, "Caller", item.caller, "")
            self._show_missing(self.callee_pages, self.callee_message, self.callee_title, "Callee", item.callee, "")
            return
        self.finding = trace_finding(ws, self.detail, item.caller, item.callee)
        colour = {True: "#2e7d32", False: "#b26a00", None: MUTED_TEXT}[self.finding.seen]
        self.trace_label.setText(f"<span style='color:{colour}'>{html.escape(self.finding.text)}</span>")
        language = self.detail.instance.language
        edge = ClassifiedEdge(item.edge_class if item.edge_class in ("TP", "FP", "FN") else "", item.caller,
                              item.callee)
        caller = self.detail.place(item.caller)
        if caller is None:
            self._show_missing(self.caller_pages, self.caller_message, self.caller_title, "Caller", item.caller,
                               "its definition was not found in the program's sources")
        else:
            sites = self.detail.call_sites(edge.caller, edge.callee)
            self._show_node(self.caller_pages, self.caller_view, self.caller_title, "Caller", caller, language, sites)
            self.caller_title.setText(self.caller_title.text() + _sites_note(sites, self.finding.seen))
        callee = self.detail.place(item.callee)
        if callee is None:
            self._show_missing(self.callee_pages, self.callee_message, self.callee_title, "Callee", item.callee,
                               NOT_DEFINED)
        else:
            self._show_node(self.callee_pages, self.callee_view, self.callee_title, "Callee", callee, language, ())

    def _show_node(self, pages: QStackedWidget, view: CodeSpanView, title: QLabel, role: str, node: Node,
                   language: str, marked: Iterable[int]) -> None:
        text = self.detail.sources[node.file]
        lines = text.split("\n")[node.start_line - 1:node.end_line]
        view.show_span("\n".join(lines), language, node.start_line, marked)
        title.setText(f"<b>{role}</b>&nbsp; <code>{html.escape(node.name)}</code>&nbsp; "
                      f"<span style='color:{MUTED_TEXT}'>{html.escape(node.file)}, lines {node.start_line}–"
                      f"{node.end_line}</span>")
        pages.setCurrentIndex(0)

    @staticmethod
    def _show_missing(pages: QStackedWidget, message: QLabel, title: QLabel, role: str, name: str,
                      why: str) -> None:
        title.setText(f"<b>{role}</b>&nbsp; <code>{html.escape(name)}</code>")
        message.setText(f"<i>{html.escape(name)}</i>: {html.escape(why)}" if why else "")
        pages.setCurrentIndex(1)


def header_html(item: AuditItem, model: str | None = "") -> str:
    """The edge, its class (against `model`; None: the class is hidden) and where it comes from."""
    language = registry.title(item.language, item.language)
    where = (f"program <b>{html.escape(item.instance_id)}</b>&nbsp;&nbsp;·&nbsp;&nbsp;{html.escape(language)}"
             f"&nbsp;&nbsp;·&nbsp;&nbsp;repo {html.escape(item.repo)}")
    edge = (f"<div style='font-size:15px'><code>{html.escape(item.caller)}</code> &nbsp;→&nbsp; "
            f"<code>{html.escape(item.callee)}</code></div>")
    if model is None:
        return (f"{edge}<div style='margin-top:4px'><span style='color:{MUTED_TEXT}'>{BLIND_NOTE}</span>"
                f"&nbsp;&nbsp;·&nbsp;&nbsp;{where}</div>")
    style = EDGE_STYLES.get(item.edge_class)
    colour = style.colour if style is not None else "#455a64"
    chip = (f"<span style='background-color:{colour}; color:#ffffff; font-weight:600'>&nbsp;"
            f"{html.escape(item.edge_class or '?')}&nbsp;</span>")
    title = CLASS_TITLES.get(item.edge_class, item.edge_class)
    if model and item.edge_class in ("TP", "FP", "FN"):
        title = title.replace("the model", model)
    return (f"{edge}<div style='margin-top:4px'>{chip}&nbsp; <span style='color:{colour}'>{html.escape(title)}</span>"
            f"&nbsp;&nbsp;·&nbsp;&nbsp;{where}</div>")


def restyle(*widgets: QWidget) -> None:
    """Set the widgets' style sheets again: palette(...) in a style sheet is read when it is set, so this makes
    their colours follow a new (dark or light) application palette."""
    for widget in widgets:
        sheet = widget.styleSheet()
        widget.setStyleSheet("")
        widget.setStyleSheet(sheet)


def _sites_note(sites: list[int], seen: bool | None) -> str:
    if not sites:
        return f"&nbsp; <span style='color:{MUTED_TEXT}'>· no call site found in its body</span>"
    where = "seen by the trace" if seen else "likely call sites (a static look)"
    lines = ", ".join(map(str, sites))
    tint = CALL_SITE_TINTS[is_dark()].name()
    return (f"&nbsp; <span style='background-color:{tint}'>&nbsp;line{'s' if len(sites) != 1 else ''}"
            f" {lines}&nbsp;</span> <span style='color:{MUTED_TEXT}'>{where}</span>")


def _rich_label() -> QLabel:
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _section_label() -> QLabel:
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setContentsMargins(10, 5, 10, 5)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)  # long Java names clip, not widen
    label.setStyleSheet("QLabel { background: palette(alternate-base); border-top: 1px solid palette(midlight); "
                        "border-bottom: 1px solid palette(midlight); }")
    return label


def _message_label() -> QLabel:
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
    label.setContentsMargins(14, 12, 14, 12)
    label.setStyleSheet(f"QLabel {{ color: {MUTED_TEXT}; background: palette(base); }}")
    return label


def _pages(view: QWidget, message: QLabel) -> QStackedWidget:
    pages = QStackedWidget()
    pages.addWidget(view)
    pages.addWidget(message)
    return pages
