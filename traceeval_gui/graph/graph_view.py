"""The call graph of the selected instance: truth, every model and the trace in one fixed layout.

The layout is computed once per instance from the union of all edge sources (core.report.graph_layout),
or from its bounded part when there are more than core.report.overlay.SHOWN_EDGE_LIMIT edges (a line above the
plot says how many are left out; the class counts still count them all), so switching the view mode,
model A / B or hiding classes never moves a node: those only rebuild the edge paths and node brushes.
Edge classes differ by colour and line style (core.report.palette); the class chips in the toolbar are the
legend and the toggles.

`GraphPanel` follows the app state: it classifies and filters the edges of the current view mode,
owns the picture drawn (what the exports write) and hands the drawing to its parts:
`GraphToolbar` and `FileLegendView` (graph_toolbar) around `GraphCanvasView` (graph_canvas),
which draws with the items of graph_items, fits and pans, and finds what is under the mouse.

Clicking a node or an edge selects it in the shared state (the source view follows); hovering
shows what it is; selections made elsewhere are highlighted and scrolled into view.
"""
from __future__ import annotations

import dataclasses
import html
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6.QtCore import QPointF, QSize, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QLabel, QMenu, QStackedWidget, QVBoxLayout, QWidget

from core.records import Edge, Node
from core.report.graph_export import GraphPicture, file_colours, to_dot, to_graphml, to_json, to_svg
from core.report.graph_labels import distinct_labels
from core.report.graph_layout import GraphLayout, layered_layout
from core.report.overlay import InstanceOverlay, ShownPart, classify_edges
from core.report.view_modes import CORRECT_CLASSES, effective_mode, view_mode
from traceeval_gui.graph.graph_canvas import LABEL_LIMIT, GraphCanvasView
from traceeval_gui.graph.graph_toolbar import FileLegendView, FocusBar, GraphToolbar, node_fill
from traceeval_gui.graph.graph_tooltips import edge_tooltip, folded_edge_tooltip, folded_tooltip, node_tooltip
from traceeval_gui.item_models.graph_focus import (
    FOCUS_NODES,
    FocusedGraph,
    default_centre,
    focus_graph,
    fold_classes,
    folded_label,
)
from traceeval_gui.item_models.graph_scene import EdgeGeometry, filter_graph, short_name
from traceeval_gui.item_models.instance_detail import ClassifiedEdge
from traceeval_gui.state.app_state import AppState
from traceeval_gui.theme.style import MUTED_TEXT
from traceeval_gui.widgets.file_dialogs import save_file_name
from traceeval_gui.widgets.note_label import NoteLabel
from traceeval_gui.widgets.omitted_edges import OmittedEdgesLabel

__all__ = ["LABEL_LIMIT", "GraphPanel"]  # LABEL_LIMIT: the tests check the label count against it

LAYOUT_CACHE = 8  # instances whose layout is kept
SIZE_HINT, MINIMUM_SIZE = QSize(520, 420), QSize(240, 200)
EXPORTERS = {"svg": to_svg, "dot": to_dot, "graphml": to_graphml, "json": to_json}
EXPORT_FILTERS = "SVG image (*.svg);;PNG image (*.png);;Graphviz DOT (*.dot);;GraphML (*.graphml);;JSON (*.json)"


@dataclass
class _LoadedGraph:
    """One instance's overlay with its layout and what is derived from it that never changes."""

    overlay: InstanceOverlay
    shown: ShownPart  # what is laid out and drawn: every edge up to the bound
    layout: GraphLayout
    groups: dict[str, str]  # node -> file ("" = not defined in the program source)
    places: dict[str, Node | None]
    title: str
    colours: dict[str, str]  # file -> fill, as in the exports (files only: no "")
    rows: dict[str, int]  # node -> row of the layout
    focused: FocusedGraph | None = None  # a big program's neighbourhood, when that is what is drawn
    sources: tuple = ()  # what `show_overlay` was given, to show it again around another selection


class GraphPanel(QWidget):
    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.picture: GraphPicture | None = None
        self._graph: _LoadedGraph | None = None
        self._layouts: OrderedDict[tuple, tuple[GraphLayout, EdgeGeometry]] = OrderedDict()
        self._classes: dict[Edge, str] = {}  # every edge of the effective mode, by class
        self._drawn: dict[Edge, str] = {}  # after hidden classes and filters
        self._shown = np.zeros(0, dtype=bool)  # per layout node: drawn in full (not faint)
        self._mode = ""  # the effective view mode (the requested one, or "truth" as a fallback)
        self._classified_for: tuple | None = None  # (view mode, model A, model B) of `_classes`
        self._focus: tuple[str, ...] = ()  # the latest selection's nodes: a node, or an edge's two ends
        self.show_all = False  # big programs: every node rather than the selection's neighbourhood

        self.toolbar = GraphToolbar(state.view_mode)
        self.banner = NoteLabel()
        self.omitted = OmittedEdgesLabel()
        self.focus_bar = FocusBar()
        self.plot = GraphCanvasView()
        self.file_legend = FileLegendView()
        self.placeholder = QLabel()
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setStyleSheet(f"color: {MUTED_TEXT}; background: palette(base);")
        plot_page = QWidget()
        plot_layout = QVBoxLayout(plot_page)
        plot_layout.setContentsMargins(0, 0, 0, 0)
        plot_layout.setSpacing(0)
        plot_layout.addWidget(self.plot, 1)
        plot_layout.addWidget(self.file_legend)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(plot_page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.toolbar)
        layout.addWidget(self.banner)
        layout.addWidget(self.omitted)
        layout.addWidget(self.focus_bar)
        layout.addWidget(self.stack, 1)

        # the parts' widgets and items, under the names tests and scripts use
        toolbar, plot = self.toolbar, self.plot
        self.mode_combo, self.models_label = toolbar.mode_combo, toolbar.models_label
        self.errors_check, self.hops_spin, self.fit_button = toolbar.errors_check, toolbar.hops_spin, toolbar.fit_button
        self.class_buttons, self.status = toolbar.class_buttons, toolbar.status  # class_buttons: refilled in place
        self.view, self.nodes_item, self.labels, self.arrows = plot.view, plot.nodes_item, plot.labels, plot.arrows
        self.edge_items, self.edge_halo, self.node_halo = plot.edge_items, plot.edge_halo, plot.node_halo

        toolbar.mode_chosen.connect(self.state.set_view_mode)
        toolbar.class_toggled.connect(self.state.set_class_shown)
        toolbar.filters_changed.connect(self._apply_filters)
        toolbar.fit_requested.connect(self.fit)
        plot.clicked.connect(self.click)
        plot.describe = self._describe
        plot.menu_requested.connect(self._on_plot_menu_requested)
        self.file_legend.file_check.toggled.connect(self._on_file_check_toggled)
        self.focus_bar.show_all_toggled.connect(self._on_focus_bar_show_all_toggled)
        self.show_all_button = self.focus_bar.button
        state.dataset_opened.connect(self._on_state_dataset_opened)
        state.instance_selected.connect(self._on_state_instance_selected)
        state.model_selected.connect(self._on_state_model_selected)
        state.compare_model_selected.connect(self._on_state_compare_model_selected)
        state.overlays_changed.connect(self._on_state_overlays_changed)
        state.node_selected.connect(self._on_state_node_selected)
        state.edge_selected.connect(self._on_state_edge_selected)
        state.runs_changed.connect(self._on_state_runs_changed)
        state.predictions_changed.connect(self._on_state_predictions_changed)
        self._load_from_state()

    # -- public API -----------------------------------------------------------------------
    def show_overlay(self, overlay: InstanceOverlay, groups: dict[str, str] | None = None,
                     places: dict[str, Node | None] | None = None, title: str = "") -> None:
        """Show an overlay (the state's instance, or any other: benchmarks, tests, traces).

        The layout is cached per instance and union of edges, so showing it again costs nothing. Beyond
        the bound only `overlay.shown()` is laid out and drawn.
        """
        sources = (overlay, groups, places, title)
        shown = overlay.shown()
        groups = {name: (groups or {}).get(name, "") for name in shown.nodes}
        edges = tuple(e.edge for e in shown.edges)
        self._focus = self._selection_focus()
        focused = None
        if len(shown.nodes) > FOCUS_NODES and not self.show_all:
            centre = tuple(n for n in self._focus if n in groups) or default_centre(shown.nodes, edges)
            focused = focus_graph(shown.nodes, edges, groups, centre)
            nodes, edges, groups = focused.nodes, focused.edges, dict(focused.groups)
        else:
            nodes = shown.nodes
        layout, geometry = self._laid_out(overlay.instance_key, nodes, edges, groups)
        title = title or overlay.instance_key
        colours = file_colours(GraphPicture(title, "truth", layout, groups, {}, overlay))
        self._graph = _LoadedGraph(overlay, shown, layout, groups, places or {}, title,
                                   {file: colour for file, colour in colours.items() if file},
                                   {name: i for i, name in enumerate(layout.nodes)}, focused, sources)
        self.plot.set_graph(layout, geometry, self._labels(layout.nodes, focused), self._node_fills(),
                            folded=None if focused is None else np.isin(np.array(layout.nodes, dtype=object),
                                                                         list(focused.folded)))
        self.focus_bar.show_focus(focused, len(shown.nodes), self._label_of)
        self._mode = ""
        self.omitted.show_part(shown)
        if layout.nodes:
            self.stack.setCurrentIndex(1)
        else:
            self._show_placeholder(f"{html.escape(title)} has no call edges to draw.")
        self._reclassify()
        self.fit()

    def clear(self, message: str = "Select a program to see its call graph.") -> None:
        self._graph = None
        self.focus_bar.show_focus(None, 0, self._label_of)
        self.picture = None
        self._classes, self._drawn = {}, {}
        self._shown = np.zeros(0, dtype=bool)
        self.plot.clear()
        self.toolbar.clear()
        self.banner.hide()
        self.omitted.show_part(None)
        self.file_legend.clear()
        self._show_placeholder(message)

    def visible_nodes(self) -> set[str]:
        """The nodes drawn in full (filtered-out nodes stay in place, drawn faint)."""
        if self._graph is None:
            return set()
        return {self._graph.layout.nodes[i] for i in np.flatnonzero(self._shown)}

    def drawn_edges(self) -> dict[Edge, str]:
        """The edges drawn, by class, after hidden classes and filters."""
        return dict(self._drawn)

    def edge_classes(self) -> dict[Edge, str]:
        """Every edge of the current view mode by class, before hiding and filters."""
        return dict(self._classes)

    @property
    def mode(self) -> str:
        """The view mode drawn: the requested one, or "truth" when its inputs are missing."""
        return self._mode

    def node_position(self, name: str) -> tuple[float, float]:
        """Where the node is drawn (read from the scatter item)."""
        return self.plot.node_position(name)

    def fit(self) -> None:
        """Zoom to what is shown (the whole graph, or the nodes left by the filters)."""
        self.plot.fit()

    def node_at(self, point) -> str | None:
        """The node under `point` (graph coordinates, as `view.mapSceneToView` gives), or None."""
        return self.plot.node_at(point)

    def edge_at(self, point) -> Edge | None:
        """The drawn edge passing within a few pixels of `point` (graph coordinates), or None."""
        return self.plot.edge_at(point)

    def label_nodes(self) -> list[str]:
        """The nodes labelled at the current zoom and range (what the label item paints)."""
        return self.plot.label_nodes()

    def tooltip_at(self, point) -> str:
        """The hover text at `point` (graph coordinates): a node's, else an edge's, else ""."""
        node = self.node_at(point)
        if node is not None:
            return self._node_tooltip(node)
        edge = self.edge_at(point)
        return self._edge_tooltip(edge) if edge is not None else ""

    def click(self, point) -> None:
        """What a left click at `point` (graph coordinates) does: select the node, else the edge."""
        node = self.node_at(point)
        focused = self._graph.focused if self._graph is not None else None
        if node is not None:
            if focused is None or node not in focused.folded:  # a folded file is not a node to select
                self.state.select_node(node)
            return
        edge = self.edge_at(point)
        if edge is not None:
            if focused is not None:  # an edge into a folded file stands for real ones: select the first
                edge = focused.stands_for[edge][0]
            self.state.select_edge_named(*edge)

    def export_picture(self) -> GraphPicture | None:
        """The picture as drawn, with nodes removed by the filters left out (positions unchanged)."""
        picture = self.picture
        if picture is None or self._shown.all():
            return picture
        layout = picture.layout
        keep = np.flatnonzero(self._shown)
        nodes = tuple(layout.nodes[i] for i in keep)
        kept = set(nodes)
        sub = GraphLayout(nodes, layout.positions[keep], layout.layers[keep],
                          frozenset(e for e in layout.reversed_edges if e[0] in kept and e[1] in kept),
                          {e: route for e, route in layout.routes.items() if e[0] in kept and e[1] in kept})
        return dataclasses.replace(picture, layout=sub, groups={n: picture.groups.get(n, "") for n in nodes})

    def export(self, path: str | Path, fmt: str | None = None) -> Path:
        """Write the graph as drawn: fmt png / svg / dot / graphml / json (default: from the suffix)."""
        path = Path(path)
        fmt = (fmt or path.suffix.lstrip(".")).lower()
        if fmt == "png":
            return self.export_png(path)
        if fmt not in EXPORTERS:
            raise ValueError(f"unknown graph export format {fmt!r} (choose from png, {', '.join(EXPORTERS)})")
        picture = self.export_picture()
        if picture is None:
            raise ValueError("no graph to export: select a program first")
        path.write_text(EXPORTERS[fmt](picture), encoding="utf-8")
        return path

    def export_png(self, path: str | Path, scale: float = 2.0) -> Path:
        """The plot area as shown, at `scale` times the screen resolution."""
        return self.plot.export_png(path, scale)

    # -- state slots ----------------------------------------------------------------------
    def _on_state_dataset_opened(self) -> None:
        self._layouts.clear()
        self._load_from_state()

    def _on_state_instance_selected(self, _key: str) -> None:
        self._load_from_state()

    def _on_state_predictions_changed(self, _model: str, keys: frozenset) -> None:
        if self.state.instance_key in keys:
            self._on_state_runs_changed(self.state.instance_key)

    def _on_state_runs_changed(self, key: str) -> None:
        if key and key == self.state.instance_key:
            self._load_from_state(keep_range=True)

    def _on_state_model_selected(self, _model: str) -> None:
        self._reclassify()

    def _on_state_compare_model_selected(self, _model: str) -> None:
        self._reclassify()

    def _on_state_overlays_changed(self) -> None:
        self.toolbar.show_mode(self.state.view_mode)
        if self._classified_for != (self.state.view_mode, self.state.model, self.state.compare_model):
            self._reclassify()
        else:
            self._apply_filters()  # only hidden classes changed

    def _on_state_node_selected(self, name: str) -> None:
        if name:
            self._focus = (name,)
            if self._refocus():
                return
        self._selection_changed()
        if name and self._graph is not None and name in self._graph.rows:
            self.plot.ensure_visible([name])

    def _on_state_edge_selected(self, edge: ClassifiedEdge | None) -> None:
        if edge is not None:
            self._focus = (edge.caller, edge.callee)
            if self._refocus():
                return
        self._selection_changed()
        if edge is not None and self._graph is not None:
            names = [n for n in (edge.caller, edge.callee) if n in self._graph.rows]
            if names:
                self.plot.ensure_visible(names)

    def _refocus(self) -> bool:
        """A big program's neighbourhood follows a selection made outside it: show the new one's."""
        graph = self._graph
        if graph is None or graph.focused is None:
            return False
        real = graph.focused.real_nodes
        if all(name in real for name in self._focus) or not any(n in graph.shown.nodes for n in self._focus):
            return False
        self.show_overlay(*graph.sources)
        self._show_selection()
        return True

    # -- widget slots ---------------------------------------------------------------------
    def _on_focus_bar_show_all_toggled(self, show_all: bool) -> None:
        self.show_all = show_all
        if self._graph is not None:
            self.show_overlay(*self._graph.sources)

    def _on_file_check_toggled(self, _checked: bool) -> None:
        if self._graph is not None:
            self.plot.set_node_fills(self._node_fills())
            self._update_file_legend()

    def _describe(self, key: tuple[str, object]) -> str:
        """The hover text of a node or an edge of the plot."""
        kind, what = key
        if self._graph is None:
            return ""
        return self._node_tooltip(what) if kind == "node" else self._edge_tooltip(what)

    def _on_plot_menu_requested(self, point: QPointF, screen_pos: QPointF) -> None:
        menu = QMenu(self)
        fit = QAction("Fit graph\tF", menu)
        fit.triggered.connect(self.fit)
        menu.addAction(fit)
        node = self.node_at(point)
        if node is not None and not (self._graph.focused is not None and node in self._graph.focused.folded):
            copy = QAction(f"Copy name “{short_name(node)}”", menu)
            copy.triggered.connect(lambda: QApplication.clipboard().setText(node))
            menu.addAction(copy)
        menu.addSeparator()
        export = QAction("Export graph…", menu)
        export.triggered.connect(self._on_export_action_triggered)
        menu.addAction(export)
        menu.popup(screen_pos.toPoint())

    def _on_export_action_triggered(self) -> None:
        if self._graph is None:
            return
        default = self._graph.title.replace("/", "_") + ".svg"
        path = save_file_name(self, "Export graph", default, EXPORT_FILTERS)
        if path:
            self.export(path)

    # -- loading --------------------------------------------------------------------------
    def _load_from_state(self, keep_range: bool = False) -> None:
        detail = self.state.detail()
        if detail is None:
            self.clear("Select a program to see its call graph." if self.state.workspace is not None
                       else "Open a dataset to see call graphs.")
            return
        places = {name: detail.place(name) for name in detail.overlay.shown().nodes}
        groups = {name: node.file if node is not None else "" for name, node in places.items()}
        view_range = self.view.viewRect()
        self.show_overlay(detail.overlay, groups, places, detail.instance.key)
        if keep_range:
            self.view.setRange(view_range, padding=0.0)

    def _laid_out(self, instance_key: str, nodes: tuple[str, ...], edges: tuple[Edge, ...],
                  groups: dict[str, str]) -> tuple[GraphLayout, EdgeGeometry]:
        """The layout of the drawn nodes and edges (all sources) and the edges' geometry, cached."""
        key = (instance_key, nodes, edges)
        if key in self._layouts:
            self._layouts.move_to_end(key)
        else:
            layout = layered_layout(nodes, edges, groups)
            self._layouts[key] = (layout, EdgeGeometry.build(layout, edges))
            while len(self._layouts) > LAYOUT_CACHE:
                self._layouts.popitem(last=False)
        return self._layouts[key]

    def _selection_focus(self) -> tuple[str, ...]:
        if self.state.edge is not None:
            return (self.state.edge.caller, self.state.edge.callee)
        return (self.state.node,) if self.state.node else ()

    def _effective_mode(self) -> tuple[str, str]:
        """(mode drawn, why it differs from the requested one)."""
        overlay = self._graph.overlay
        mode, why = effective_mode(self.state.view_mode, self.state.model, self.state.compare_model, overlay.models,
                                   overlay.trace is not None)
        return mode, f"Showing the ground truth: {why}." if why else ""

    # -- rebuilding (never the layout) ----------------------------------------------------
    def _reclassify(self) -> None:
        """The view mode or a model changed: classify the edges again, then filter and draw."""
        if self._graph is None:
            return
        self._classified_for = (self.state.view_mode, self.state.model, self.state.compare_model)
        mode, why = self._effective_mode()
        overlay, a, b = self._graph.overlay, self.state.model, self.state.compare_model
        self._classes = classify_edges(overlay, mode, a, b, self._graph.shown.edges)
        if mode != self._mode:
            self._mode = mode
            self.toolbar.set_classes(view_mode(mode).classes, self.state.hidden_classes)
        self.banner.setText(why)
        self.banner.setVisible(bool(why))
        names = {"model": f"A: {a or 'none'}", "compare": f"A: {a or 'none'} · B: {b or 'none'}"}
        self.models_label.setText(names.get(self.state.view_mode, ""))
        self.models_label.setToolTip(self.models_label.text())
        self.toolbar.show_counts(overlay.class_counts(mode, a, b))  # every edge, drawn or not
        self._apply_filters()

    def _apply_filters(self) -> None:
        """Hidden classes, errors only and hops: choose the drawn edges and nodes, then draw them."""
        graph = self._graph
        if graph is None:
            return
        hidden, errors_only, hops = self.state.hidden_classes, self.toolbar.errors_only, self.toolbar.hops
        self.toolbar.show_hidden(hidden)
        focus = tuple(name for name in self._focus if name in graph.rows)
        classes = self._classes
        if graph.focused is not None:
            classes = fold_classes(classes, graph.focused, view_mode(self._mode).worst_first)
        self._drawn, self._shown = filter_graph(classes, graph.rows, hidden, errors_only, hops, focus)
        self.plot.draw(self._drawn, self._shown)
        self._show_selection()
        self._update_file_legend()
        self._update_picture()
        n, shown = len(graph.layout.nodes), int(self._shown.sum())
        parts = [f"{shown:,} of {n:,} nodes" if shown != n else f"{n:,} nodes",
                 f"{len(self._drawn):,} of {len(self._classes):,} edges" if len(self._drawn) != len(self._classes)
                 else f"{len(self._drawn):,} edges"]
        if hops and not focus:
            parts.append("select a node to focus")
        self.status.setText(" · ".join(parts))

    def _selection_changed(self) -> None:
        if self._graph is None:
            return
        if self.toolbar.hops or self.toolbar.errors_only:
            self._apply_filters()  # the filters depend on the selection
        else:
            self._show_selection()

    def _show_selection(self) -> None:
        edge = self.state.edge
        pair = (edge.caller, edge.callee) if edge is not None else None
        self.plot.show_selection(pair, self.state.node)
        selected = edge is not None or bool(self.state.node)
        self.toolbar.show_selection(self._focus if selected else None)  # the latest: a node, or an edge's ends

    def sizeHint(self) -> QSize:
        return QSize(SIZE_HINT)  # never the contents': the splitters around stay put when modes change

    def minimumSizeHint(self) -> QSize:
        return QSize(MINIMUM_SIZE)

    def _node_fills(self) -> list[str]:
        graph = self._graph
        colours = graph.colours if self.file_legend.colour_by_file else {}
        return [node_fill(graph.groups.get(name, ""), colours) for name in graph.layout.nodes]

    def _update_file_legend(self) -> None:
        graph = self._graph
        files = {graph.groups.get(graph.layout.nodes[i], "") for i in np.flatnonzero(self._shown)}
        self.file_legend.show_files(graph.colours if self.file_legend.colour_by_file else {}, files)

    def _update_picture(self) -> None:
        graph = self._graph
        a, b = self.state.model, self.state.compare_model
        title = f"{graph.title}: " + view_mode(self._mode).heading.format(a=a or "model A", b=b or "model B")
        if graph.shown.omitted_edges:
            title = f"{title} ({graph.shown.summary()})"  # as core.report.graph_export.picture_for says it
        hidden = frozenset(self.state.hidden_classes) | (CORRECT_CLASSES if self.toolbar.errors_only else frozenset())
        self.picture = GraphPicture(title, self._mode, graph.layout, graph.groups, dict(self._drawn), graph.overlay,
                                    a, b, hidden & set(view_mode(self._mode).classes), graph.shown.omitted_edges)

    def _node_tooltip(self, name: str) -> str:
        graph = self._graph
        if graph.focused is not None and name in graph.focused.folded:
            return folded_tooltip(self._label_of(name), graph.groups.get(name, ""), graph.focused.folded[name])
        return node_tooltip(name, graph.places.get(name), graph.groups.get(name, ""), self._classes, self._mode)

    def _edge_tooltip(self, edge: Edge) -> str:
        focused = self._graph.focused
        if focused is not None and edge not in self._classes:
            return folded_edge_tooltip(edge, self._drawn.get(edge), focused.stands_for.get(edge, ()), self._classes)
        return edge_tooltip(edge, self._classes.get(edge), self._graph.overlay)

    def _labels(self, nodes: tuple[str, ...], focused: FocusedGraph | None) -> list[str]:
        """Node labels, told apart within the picture; a folded file says how many nodes it holds."""
        if focused is None:
            return distinct_labels(nodes)
        real = [n for n in nodes if n not in focused.folded]
        labels = dict(zip(real, distinct_labels(real)))
        return [labels[n] if n in labels else folded_label(n, focused.folded[n]) for n in nodes]

    def _label_of(self, name: str) -> str:
        """A node's label in the picture drawn (the name itself when it is not drawn)."""
        graph = self._graph
        if graph is None or name not in graph.rows:
            return name
        return self.plot.labels.texts[graph.rows[name]]

    def _show_placeholder(self, message: str) -> None:
        self.placeholder.setText(message)
        self.stack.setCurrentIndex(0)
