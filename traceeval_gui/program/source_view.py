"""The selected instance's source files, with the current model's edges marked on their callers.

A caller's definition line is tinted by its worst class (missed edges, then hallucinated ones,
then found ones) and its gutter shows a bar per class present; hovering lists the edges.
Module-level code has no definition line, so its edges are marked on their candidate call
sites instead. Selecting an edge moves to the caller's definition and highlights the lines
where the call may happen. A click in the code selects the function it is in (everywhere); Ctrl+F with
the focus in the code finds in the shown file. Only the overlay's bounded shown part is marked (every edge of
a program of benchmark size); beyond it the notice says how many edges are left out.
"""
from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QLabel, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from core.languages import registry
from core.report.view_modes import view_mode
from core.wording import count
from traceeval_gui.item_models.instance_detail import EDGE_CLASSES, ClassifiedEdge, InstanceDetail
from traceeval_gui.program.file_tabs import file_tab_title, show_file_names
from traceeval_gui.program.source_file_view import LineMark, SourceFileView
from traceeval_gui.program.source_find_bar import SourceFindBar
from traceeval_gui.state.app_state import AppState
from traceeval_gui.theme.style import EDGE_COLOURS, MUTED_TEXT

TOOLTIP_EDGES = 14
NOTICE_PROBLEMS = 3  # parse problems listed in the notice; the rest are counted


class SourceView(QWidget):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self._shown_key: str | None = None
        self._clicked_node: str | None = None  # selected by a click in the code: highlight, do not scroll
        self.header = QLabel()
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setOpenExternalLinks(True)
        self.header.setWordWrap(True)
        self.header.setContentsMargins(8, 6, 8, 4)
        self.notice = QLabel()  # parse problems, unplaced callers
        self.notice.setWordWrap(True)
        self.notice.setContentsMargins(8, 0, 8, 4)
        self.notice.setStyleSheet("color: #8a5a00;")
        self.notice.hide()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.setUsesScrollButtons(True)
        self.tabs.setElideMode(Qt.TextElideMode.ElideNone)  # short names instead, see tab_titles
        show_file_names(self.tabs)
        self.tabs.currentChanged.connect(self._on_tabs_current_changed)
        self.find_bar = SourceFindBar()
        self.find_bar.closed.connect(self._on_find_bar_closed)
        for keys, step in ((QKeySequence.StandardKey.FindNext, 1), (QKeySequence.StandardKey.FindPrevious, -1)):
            shortcut = QShortcut(keys, self, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda s=step: self.find_bar.step(s) if self.find_bar.isVisible()
                                       else self.open_find())
        self.placeholder = QLabel("Select a program in the list to see its source.")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setStyleSheet(f"color: {MUTED_TEXT};")
        self.stack = QStackedWidget()
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(self.tabs)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.header)
        layout.addWidget(self.notice)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.find_bar)
        state.dataset_opened.connect(self._on_state_dataset_opened)
        state.instance_selected.connect(self._on_state_instance_selected)
        state.model_selected.connect(self._on_state_model_selected)
        state.edge_selected.connect(self._on_state_edge_selected)
        state.node_selected.connect(self._on_state_node_selected)
        state.runs_changed.connect(self._on_state_runs_changed)
        state.predictions_changed.connect(self._on_state_predictions_changed)
        self._clear()

    # -- queries (tests, other views) -----------------------------------------------------
    def file_view(self, path: str) -> SourceFileView | None:
        for index in range(self.tabs.count()):
            widget = self.tabs.widget(index)
            if isinstance(widget, SourceFileView) and widget.path == path:
                return widget
        return None

    def show_file(self, path: str) -> bool:
        """Bring the tab of `path` (relative to the program's folder) to the front; False when not shown."""
        view = self.file_view(path)
        if view is None:
            return False
        self.tabs.setCurrentWidget(view)
        return True

    def current_file(self) -> str | None:
        widget = self.tabs.currentWidget()
        return widget.path if isinstance(widget, SourceFileView) else None

    def current_line(self) -> int | None:
        widget = self.tabs.currentWidget()
        return widget.current_line() if isinstance(widget, SourceFileView) else None

    def open_find(self) -> None:
        """Show the find bar over the shown file, the focus in it (Ctrl+F when the code has the focus)."""
        self.find_bar.attach(self._current_view())
        self.find_bar.open()

    def _current_view(self) -> SourceFileView | None:
        widget = self.tabs.currentWidget()
        return widget if isinstance(widget, SourceFileView) else None

    # -- slots ----------------------------------------------------------------------------
    def _on_tabs_current_changed(self, _index: int) -> None:
        self.find_bar.attach(self._current_view())

    def _on_find_bar_closed(self) -> None:
        view = self._current_view()
        if view is not None:
            view.setFocus()

    def _on_file_view_position_clicked(self, path: str, line: int, column: int) -> None:
        """Select the function (method, lambda, module code) the user clicked in."""
        detail = self.state.detail()
        node = detail.symbols.node_at(path, line, column) if detail is not None else None
        if node is not None:
            self._clicked_node = node.name
            self.state.select_node(node.name)
            self._clicked_node = None

    def _on_state_dataset_opened(self) -> None:
        # Another view may already have selected an instance while handling this same signal,
        # so render the state as it is now instead of assuming it is empty.
        self._shown_key = None
        self._refresh()

    def _on_state_instance_selected(self, _key: str) -> None:
        self._refresh()

    def _on_state_model_selected(self, _model: str) -> None:
        self._refresh()

    def _on_state_edge_selected(self, edge: ClassifiedEdge | None) -> None:
        detail = self.state.detail()
        if detail is not None:
            self._focus_edge(detail, edge)

    def _on_state_node_selected(self, name: str) -> None:
        """A node picked in the graph: show its definition (or say it is not in the source)."""
        detail = self.state.detail()
        if detail is None or not name:
            return
        node = detail.place(name)
        view = self.file_view(node.file) if node is not None else None
        if view is None:
            self._show_notice(detail, f"{name} is not defined in this program's source "
                                      "(a library call, or a name the program does not have)")
            return
        self._show_notice(detail)
        self.tabs.setCurrentWidget(view)
        view.focus_line(node.start_line, detail.classify_node(name), (), move=name != self._clicked_node)

    def _on_state_predictions_changed(self, _model: str, keys: frozenset) -> None:
        if self.state.instance_key in keys:
            self._on_state_runs_changed(self.state.instance_key)

    def _on_state_runs_changed(self, key: str) -> None:
        if key == self.state.instance_key:
            self._refresh()

    # -- building -------------------------------------------------------------------------
    def _focus_edge(self, detail: InstanceDetail, edge: ClassifiedEdge | None) -> None:
        for index in range(self.tabs.count()):  # one focus at a time
            widget = self.tabs.widget(index)
            if isinstance(widget, SourceFileView):
                widget.clear_focus()
        if edge is None:
            return
        node = detail.place(edge.caller)
        view = self.file_view(node.file) if node is not None else None
        if view is None:
            self._show_notice(detail, f"{edge.caller} is not defined in this program's source")
            return
        self._show_notice(detail)
        call_sites = tuple(detail.call_sites(edge.caller, edge.callee))
        callee = detail.place(edge.callee)
        callee_view = self.file_view(callee.file) if callee is not None and callee.kind != "module" else None
        if callee_view is not None:
            callee_view.mark_callee(callee.start_line, edge.kind)
        line = node.start_line if node.kind != "module" else (call_sites[0] if call_sites else 1)
        self.tabs.setCurrentWidget(view)
        view.focus_line(line, edge.kind, call_sites)

    def _clear(self) -> None:
        self._shown_key = None
        self.header.setText("<b>No program selected</b>")
        self.notice.hide()
        self._remove_tabs()
        self.stack.setCurrentWidget(self.placeholder)

    def _remove_tabs(self) -> None:
        while self.tabs.count():
            widget = self.tabs.widget(0)
            self.tabs.removeTab(0)
            widget.deleteLater()

    def _refresh(self) -> None:
        detail = self.state.detail()
        if detail is None:
            self._clear()
            return
        if detail.instance.key != self._shown_key:
            self._build_tabs(detail)
        self.header.setText(self._header_html(detail))
        self._apply_marks(detail)
        self._show_notice(detail)
        if self.state.edge is not None:
            self._focus_edge(detail, self.state.edge)

    def _build_tabs(self, detail: InstanceDetail) -> None:
        self._remove_tabs()
        instance = detail.instance
        titles = tab_titles(instance.files)
        for path in instance.files:
            if path in detail.sources:
                widget = SourceFileView(path, detail.sources[path], instance.language)
                widget.position_clicked.connect(lambda line, column, p=path: self._on_file_view_position_clicked(
                    p, line, column))
            else:
                widget = QLabel(f"Cannot read {path}: {detail.unreadable.get(path, 'unknown error')}")
                widget.setAlignment(Qt.AlignmentFlag.AlignCenter)
            index = self.tabs.addTab(widget, file_tab_title(titles[path]))
            self.tabs.setTabToolTip(index, f"{path}" + ("  (entry point)" if path == instance.entry_point else ""))
        self._shown_key = instance.key
        self.stack.setCurrentWidget(self.tabs)

    def _apply_marks(self, detail: InstanceDetail) -> None:
        marks: dict[str, dict[int, LineMark]] = {path: {} for path in detail.sources}
        for caller, edges in detail.edges_by_caller().items():
            node = detail.place(caller)
            if node is None:
                continue
            if node.kind == "module":
                by_line: dict[int, list[ClassifiedEdge]] = {}
                for edge in edges:
                    for line in detail.call_sites(edge.caller, edge.callee):
                        by_line.setdefault(line, []).append(edge)
                for line, line_edges in by_line.items():
                    _add_mark(marks[node.file], line, line_edges, f"{caller} (module level)")
            else:
                _add_mark(marks[node.file], node.start_line, edges, caller)
        for path, file_marks in marks.items():
            view = self.file_view(path)
            if view is not None:
                view.set_marks(file_marks)

    def _header_html(self, detail: InstanceDetail) -> str:
        instance = detail.instance
        facts = [registry.title(instance.language, instance.language), instance.split or "no split",
                 f"repository {html.escape(instance.repo)}",
                 count(len(instance.files), "file"),
                 f"entry {html.escape(instance.entry_point)}"]
        text = f"<b>{html.escape(instance.id)}</b>&nbsp;&nbsp;<span style='color:{MUTED_TEXT}'>" \
               f"{' · '.join(facts)}</span>"
        url = instance.provenance.source_url
        if url:
            text += f"<br><span style='color:{MUTED_TEXT}'>source: </span>" \
                    f"<a href='{html.escape(url, quote=True)}'>{html.escape(url)}</a>"
            if instance.provenance.original_file:
                text += f" <span style='color:{MUTED_TEXT}'>({html.escape(instance.provenance.original_file)})</span>"
        return text

    def _show_notice(self, detail: InstanceDetail, extra: str = "") -> None:
        lines = []
        if detail.prediction is not None:
            problems = detail.prediction.parse_problems
            lines += [f"{detail.model}: {problem}" for problem in problems[:NOTICE_PROBLEMS]]
            if len(problems) > NOTICE_PROBLEMS:
                lines.append(f"{detail.model}: … and {len(problems) - NOTICE_PROBLEMS:,} more parse problems "
                             "(see the Answer tab)")
        if detail.shown.omitted_edges:
            shown = detail.shown
            lines.append(f"marks show {len(shown.edges):,} of {len(shown.edges) + shown.omitted_edges:,} edges, the "
                         f"truth's and the trace's first {shown.summary()}")
        unplaced = [caller for caller in detail.edges_by_caller() if detail.place(caller) is None]
        if unplaced:
            shown = ", ".join(unplaced[:3]) + (f" and {len(unplaced) - 3} more" if len(unplaced) > 3 else "")
            lines.append(f"callers not defined in the source (not marked): {shown}")
        if extra:
            lines.append(extra)
        self.notice.setText("\n".join(f"⚠ {line}" for line in lines))
        self.notice.setVisible(bool(lines))


def tab_titles(paths: tuple[str, ...]) -> dict[str, str]:
    """The shortest path suffix that tells each file apart: `Account.java`, `a/index.js`, `b/index.js`."""
    depth = dict.fromkeys(paths, 1)
    while True:
        titles = {path: "/".join(path.split("/")[-depth[path]:]) for path in paths}
        clashes = {title for title in titles.values() if list(titles.values()).count(title) > 1}
        grow = [path for path in paths if titles[path] in clashes and depth[path] < path.count("/") + 1]
        if not grow:
            return titles
        for path in grow:
            depth[path] += 1


def _add_mark(marks: dict[int, LineMark], line: int, edges: list[ClassifiedEdge], title: str) -> None:
    """Add edges to a line's mark, merging with what is there."""
    old = marks.get(line)
    present = set(old.kinds if old else ()) | {edge.kind for edge in edges}
    kinds = tuple(kind for kind in EDGE_CLASSES if kind in present)
    tint = next(kind for kind in view_mode("model").worst_first if kind in present)
    rows = [f"<span style='color:{EDGE_COLOURS[e.kind]}'><b>{e.kind}</b></span>&nbsp;→ {html.escape(e.callee)}"
            for e in edges[:TOOLTIP_EDGES]]
    if len(edges) > TOOLTIP_EDGES:
        rows.append(f"… and {len(edges) - TOOLTIP_EDGES} more")
    tooltip = f"<b>{html.escape(title)}</b><br>" + "<br>".join(rows)
    if old is not None and old.tooltip:
        tooltip = old.tooltip + "<hr>" + tooltip
    counts = dict(old.counts) if old is not None else {}
    for edge in edges:
        counts[edge.kind] = counts.get(edge.kind, 0) + 1
    ordered = tuple((kind, counts[kind]) for kind in view_mode("model").worst_first if kind in counts)
    marks[line] = LineMark(kinds, tint, tooltip, ordered)
