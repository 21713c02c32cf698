"""Metrics plots: per-program F1 histogram per model, F1 against program size, per-language bars.

Everything is drawn from per-program counts already in memory (the ones computed when the dataset
was opened, or the metrics panel's counts for its chosen normalisation modes when the panel is
followed), so the plots redraw instantly on a 10k-program dataset. The numbers come from
`core.scoring.plot_data`; this module only draws them. One scatter item per model (never one item per
point); clicking a point selects that program everywhere.
"""
from __future__ import annotations

import html
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

# isort: split
import pyqtgraph as pg  # after PySide6 (docs/design.md)

from core.languages import registry
from core.scoring.metrics import INSTANCE_RULE, Counts
from core.scoring.normalise import MODES
from core.scoring.plot_data import HISTOGRAM_BINS, SIZE_MEASURES, ModelPoints, PlotData, plot_data
from core.scoring.rules import PAPER, rules_title
from core.scoring.tables import DAGGER
from core.wording import count
from traceeval_gui.state.app_state import AppState
from traceeval_gui.theme.style import MUTED_TEXT
from traceeval_gui.widgets.elided_label import ElidedLabel
from traceeval_gui.widgets.split_combo import SplitCombo
from traceeval_gui.widgets.when_shown import WhenShown

if TYPE_CHECKING:
    from traceeval_gui.metrics.metrics_panel import MetricsPanel

PAPER_MODES = frozenset(MODES)
# A qualitative palette that stays apart for colour-blind readers (Okabe-Ito without yellow, then
# Paul Tol's muted colours); cycled when there are more models.
MODEL_COLOURS = ("#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9", "#882255", "#44aa99",
                 "#999933", "#332288", "#555555")
AXIS_COLOUR = "#5f6368"
TEXT_COLOUR = "#202124"
RING_COLOUR = "#202124"
HOVER_RADIUS_PX = 6
LABELLED_BARS_MAX_MODELS = 3  # value labels above bars only while they stay readable


def model_colour(index: int) -> str:
    return MODEL_COLOURS[index % len(MODEL_COLOURS)]


def legend_name(series) -> str:
    return series.model + (f" {DAGGER}" if series.illustrative else "")


class MetricsPlotsPanel(QWidget):
    plots_changed = Signal()  # the plots were redrawn from new data (split, counts or modes)

    def __init__(self, state: AppState, metrics_panel: MetricsPanel | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.data: PlotData | None = None
        self.metrics_panel: MetricsPanel | None = None
        self.scatter_items: dict[str, pg.ScatterPlotItem] = {}
        self.histogram_items: dict[str, pg.BarGraphItem] = {}
        self.bar_items: dict[str, pg.BarGraphItem] = {}
        self._bar_geometry: list[tuple[float, float, str, str]] = []  # x, width, model, column (hover lookup)
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(0)
        self._refresh_timer.timeout.connect(self._on_refresh_timer_timeout)
        self._when_shown = WhenShown(self)  # behind another tab, the plots are redrawn when shown
        self._build()
        state.dataset_opened.connect(self._on_state_dataset_opened)
        state.instance_selected.connect(self._on_state_instance_selected)
        if metrics_panel is not None:
            self.follow(metrics_panel)
        self._draw()

    # -- building -------------------------------------------------------------------------
    def _build(self) -> None:
        self.split_combo = SplitCombo(scoring=True, tooltip="Which programs are plotted")
        self.split_combo.currentIndexChanged.connect(self._on_split_combo_changed)
        self.size_combo = QComboBox()
        for measure, title in SIZE_MEASURES.items():
            self.size_combo.addItem(title, measure)
        self.size_combo.setToolTip("The program size on the x axis of the F1 / size plot (from the dataset "
                                   "as released, before normalisation)")
        self.size_combo.currentIndexChanged.connect(self._on_size_combo_changed)
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setToolTip("One colour per model in all three plots")
        top = QHBoxLayout()
        top.setContentsMargins(8, 6, 8, 2)
        top.addWidget(QLabel("Programs:"))
        top.addWidget(self.split_combo)
        top.addSpacing(12)
        top.addWidget(QLabel("Size:"))
        top.addWidget(self.size_combo)
        top.addSpacing(16)
        top.addWidget(self.legend, 1)

        self.histogram_plot = _plot_widget("Per-program F1", "F1 (%)", "programs", grid=False)
        self.scatter_plot = _plot_widget("F1 against program size", SIZE_MEASURES["edges"], "F1 (%)", grid=True)
        self.bars_plot = _plot_widget("F1 per language", "micro per language, macro average", "F1 (%)", grid=False)
        self.histogram_plot.setXRange(-3, 103, padding=0)
        for k in range(1, HISTOGRAM_BINS):  # the bin edges (an axis grid would hide the end tick labels)
            line = pg.InfiniteLine(100 * k / HISTOGRAM_BINS, angle=90, pen=pg.mkPen("#e3e6e8", width=1))
            line.setZValue(-10)
            self.histogram_plot.addItem(line)
        self.histogram_plot.getAxis("bottom").setTicks([[(v, str(v)) for v in range(0, 101, 20)],
                                                        [(v, "") for v in range(10, 100, 20)]])
        self.scatter_plot.setYRange(-4, 104, padding=0)
        self.scatter_plot.getAxis("left").setTicks([[(v, str(v)) for v in range(0, 101, 20)]])
        self.bars_plot.getAxis("left").setTicks([[(v, str(v)) for v in range(0, 101, 20)]])
        self.ring_item = pg.ScatterPlotItem(symbol="o", size=17, pen=pg.mkPen(RING_COLOUR, width=2.2),
                                            brush=None, pxMode=True)
        self.ring_item.setZValue(10)
        self.ring_item.setEnabled(False)  # drawn on top, but clicks go to the points under it
        self.scatter_plot.addItem(self.ring_item)
        for plot, handler in ((self.histogram_plot, self._on_histogram_scene_moved),
                              (self.scatter_plot, self._on_scatter_scene_moved),
                              (self.bars_plot, self._on_bars_scene_moved)):
            plot.scene().sigMouseMoved.connect(handler)
        plots = QHBoxLayout()
        plots.setContentsMargins(4, 0, 4, 0)
        plots.setSpacing(2)
        for plot in (self.histogram_plot, self.scatter_plot, self.bars_plot):
            plots.addWidget(plot, 1)
        self.status = ElidedLabel()  # one line under the plots, whatever their height
        self.status.setStyleSheet(f"color: {MUTED_TEXT};")
        self.status.setContentsMargins(8, 0, 8, 4)
        self.status.setToolTip(f"Histogram and scatter: per-program F1, rule: {INSTANCE_RULE}.<br>"
                               "Bars: the paper's rule: TP / FP / FN summed per language (micro), "
                               "then the unweighted mean over languages (macro).")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addLayout(plots, 1)
        layout.addWidget(self.status)

    # -- public ---------------------------------------------------------------------------
    def follow(self, metrics_panel: MetricsPanel) -> None:
        """Plot the metrics panel's per-program counts (its normalisation modes) and share its split.
        Follows one panel for good: a second call with the same panel does nothing."""
        if self.metrics_panel is metrics_panel:
            return
        if self.metrics_panel is not None:
            raise ValueError("these plots already follow another metrics panel")
        self.metrics_panel = metrics_panel
        metrics_panel.counts_changed.connect(self._on_metrics_panel_counts_changed)
        metrics_panel.split_changed.connect(self._on_metrics_panel_split_changed)
        metrics_panel.scoring_changed.connect(self._on_metrics_panel_scoring_changed)
        if self.state.opened is not None:
            if metrics_panel.table is not None:
                self.set_split(metrics_panel.split())
            self._schedule_refresh()

    def split(self) -> str | None:
        return self.split_combo.split()

    def set_split(self, split: str | None) -> None:
        self.split_combo.set_split(split)

    def size_measure(self) -> str:
        return self.size_combo.currentData()

    def set_size_measure(self, measure: str) -> None:
        self.size_combo.setCurrentIndex(self.size_combo.findData(measure))

    def key_at(self, model: str, index: int) -> str:
        """The program of a scatter point (point data = instance key)."""
        return self.scatter_items[model].data["data"][index]

    def point_of(self, model: str, key: str) -> tuple[float, float] | None:
        """Where a program is drawn in a model's scatter (x = size, y = F1 %), None when not plotted."""
        series = self.data.series(model) if self.data is not None else None
        index = series.index(key) if series is not None else None
        if index is None:
            return None
        return float(series.sizes[self.size_measure()][index]), float(series.f1[index] * 100)

    def nearest_point(self, view_x: float, view_y: float, radius_px: float = HOVER_RADIUS_PX) \
            -> tuple[ModelPoints, int] | None:
        """The scatter point nearest to a position in data coordinates, within `radius_px` pixels."""
        if self.data is None:
            return None
        view_box = self.scatter_plot.getViewBox()
        (x_min, x_max), (y_min, y_max) = view_box.viewRange()
        width, height = max(view_box.width(), 1.0), max(view_box.height(), 1.0)
        sx, sy = width / max(x_max - x_min, 1e-12), height / max(y_max - y_min, 1e-12)
        best, best_d = None, radius_px ** 2
        for series in reversed(self.data.points):  # the model drawn on top wins ties
            if not len(series) or not self.scatter_items[series.model].isVisible():
                continue
            dx = (series.sizes[self.size_measure()] - view_x) * sx
            dy = (series.f1 * 100 - view_y) * sy
            d = dx * dx + dy * dy
            index = int(np.argmin(d))
            if d[index] < best_d:
                best, best_d = (series, index), float(d[index])
        return best

    # -- slots ----------------------------------------------------------------------------
    def _on_state_dataset_opened(self) -> None:
        splits = self.state.workspace.split_names() if self.state.workspace else set()
        wanted = self.metrics_panel.split() if self.metrics_panel is not None and \
            self.metrics_panel.table is not None else self.state.opened.default_split
        self.split_combo.fill(splits, wanted)
        self._schedule_refresh()

    def _on_state_instance_selected(self, _key: str) -> None:
        self._show_selected()

    def _on_split_combo_changed(self, _index: int) -> None:
        if self.metrics_panel is not None and self.metrics_panel.split() != self.split():
            self.metrics_panel.set_split(self.split())
        self._schedule_refresh()

    def _on_size_combo_changed(self, _index: int) -> None:
        self.scatter_plot.setLabel("bottom", SIZE_MEASURES[self.size_measure()], color=TEXT_COLOUR)
        self._draw_scatter()
        self._show_selected()

    def _on_metrics_panel_counts_changed(self) -> None:
        self._schedule_refresh()

    def _on_metrics_panel_split_changed(self, split: str | None) -> None:
        self.set_split(split)

    def _on_metrics_panel_scoring_changed(self, _busy: bool) -> None:
        self._show_status()

    def _on_refresh_timer_timeout(self) -> None:
        self._when_shown.request(self._refresh)

    def _on_scatter_clicked(self, _item, points, event) -> None:
        if not len(points):
            return
        key = points[0].data()  # the topmost point under the mouse
        if event is not None:  # the point the tooltip names (the nearest), where points are dense
            position = event.pos()
            found = self.nearest_point(position.x(), position.y())
            if found is not None:
                key = found[0].keys[found[1]]
        self.state.select_instance(key)

    def _on_scatter_scene_moved(self, position: QPointF) -> None:
        view_box = self.scatter_plot.getViewBox()
        found = None
        if view_box.sceneBoundingRect().contains(position):
            point = view_box.mapSceneToView(position)
            found = self.nearest_point(point.x(), point.y())
        view_box.setToolTip(self._point_tooltip(*found) if found else "")

    def _on_histogram_scene_moved(self, position: QPointF) -> None:
        view_box = self.histogram_plot.getViewBox()
        tip = ""
        if self.data is not None and self.data.points and view_box.sceneBoundingRect().contains(position):
            x = view_box.mapSceneToView(position).x()
            bins = len(next(iter(self.data.histograms.values())).counts)
            width = 100 / bins
            index = int(x // width)
            if 0 <= index < bins:
                offset = (x - index * width) / width
                order = self._histogram_order(offset)
                if order is not None:
                    series = self.data.points[order]
                    n = int(self.data.histograms[series.model].counts[index])
                    low, high = index * width, (index + 1) * width
                    closing = "]" if index == bins - 1 else ")"
                    tip = (f"<b>{html.escape(legend_name(series))}</b><br>{n:,} of {len(series):,} programs "
                           f"with F1 in [{low:.0f}, {high:.0f}{closing} %")
        view_box.setToolTip(tip)

    def _on_bars_scene_moved(self, position: QPointF) -> None:
        view_box = self.bars_plot.getViewBox()
        tip = ""
        if self.data is not None and view_box.sceneBoundingRect().contains(position):
            x = view_box.mapSceneToView(position).x()
            for centre, width, model, column in self._bar_geometry:
                if abs(x - centre) <= width / 2:
                    tip = self._bar_tooltip(model, column)
                    break
        view_box.setToolTip(tip)

    # -- drawing --------------------------------------------------------------------------
    def _schedule_refresh(self) -> None:
        """Redraw once after the current burst of changes (dataset, split, counts) has settled."""
        self._refresh_timer.start()

    def _source(self) -> tuple[dict[str, dict[str, Counts]], tuple[str, frozenset[str]]] | None:
        """The counts to plot and their (rules, modes)."""
        if self.state.opened is None:
            return None
        if self.metrics_panel is not None and self.metrics_panel.counts is not None:
            return self.metrics_panel.counts, self.metrics_panel.counts_reading
        return self.state.opened.counts, (PAPER, PAPER_MODES)

    def _refresh(self) -> None:
        source = self._source()
        if source is None:
            self.data = None
        else:
            counts, (rules, modes) = source
            self.data = plot_data(self.state.opened.rows, self.state.models, counts, self.split(), modes,
                                  rules=rules)
        self._draw()
        self.plots_changed.emit()

    def _draw(self) -> None:
        self._draw_legend()
        self._draw_histogram()
        self._draw_scatter()
        self._draw_bars()
        self._show_selected()
        self._show_status()

    def _show_status(self) -> None:
        if self.data is None:
            self.status.setText("Open a dataset to see its plots.")
            return
        modes = ", ".join(sorted(self.data.modes)) or "off"
        scored = sorted(len(p) for p in self.data.points) or [0]
        selected = sum(self.data.programs.values())
        counted = f"{scored[0]:,}" if scored[0] == scored[-1] else f"{scored[0]:,}–{scored[-1]:,}"
        parts = [f"{count(selected, 'program')}, {counted} scored" + (" per model" if len(scored) > 1 else ""),
                 rules_title(self.data.rules),
                 f"normalisation: {modes}" + ("" if self.data.modes == PAPER_MODES else " (not the paper's setting)")]
        if self.metrics_panel is not None and self.metrics_panel.counts_reading != self.metrics_panel.reading():
            parts.append("scoring the chosen rules and modes…")
        parts += [f"per-program F1: {INSTANCE_RULE}", "click a point to open its program"]
        self.status.setText(" · ".join(parts))

    def _draw_legend(self) -> None:
        if self.data is None or not self.data.points:
            self.legend.setText("")
            return
        chips = [f"<span style='color:{model_colour(order)}; font-size:13pt'>■</span>&nbsp;"
                 f"{html.escape(legend_name(series))}" for order, series in enumerate(self.data.points)]
        if any(series.illustrative for series in self.data.points):
            chips.append(f"<span style='color:{MUTED_TEXT}'>{DAGGER} illustrative, not real model output</span>")
        self.legend.setText("&nbsp;&nbsp;&nbsp; ".join(chips))

    def _draw_histogram(self) -> None:
        plot = self.histogram_plot
        for item in self.histogram_items.values():
            plot.removeItem(item)
        self.histogram_items = {}
        if self.data is None or not self.data.points:
            return
        n = len(self.data.points)
        for order, series in enumerate(self.data.points):
            histogram = self.data.histograms[series.model]
            bin_width = (histogram.edges[1] - histogram.edges[0]) * 100
            group = bin_width * 0.84
            width = group / n
            left = histogram.edges[:-1] * 100 + (bin_width - group) / 2 + order * width
            filled = histogram.counts > 0  # an empty bin draws nothing (not a flat outline)
            colour = model_colour(order)
            item = pg.BarGraphItem(x0=left[filled], width=width * 0.92,
                                   height=histogram.counts[filled].astype(float),
                                   brush=pg.mkBrush(colour), pen=pg.mkPen(QColor(colour).darker(130), width=0.8),
                                   name=legend_name(series))
            plot.addItem(item)
            self.histogram_items[series.model] = item
        highest = max(float(h.counts.max()) if len(h.counts) else 0.0 for h in self.data.histograms.values())
        plot.setYRange(0, max(highest, 1.0) * 1.08, padding=0)

    def _histogram_order(self, offset: float) -> int | None:
        """Which model's bar is under a position inside a bin (0..1 across the bin)."""
        n = len(self.data.points)
        inner = (offset - 0.08) / 0.84
        return int(inner * n) if 0 <= inner < 1 else None

    def _draw_scatter(self) -> None:
        plot = self.scatter_plot
        for item in self.scatter_items.values():
            plot.removeItem(item)
        self.scatter_items = {}
        if self.data is None:
            return
        measure = self.size_measure()
        largest = max((len(p) for p in self.data.points), default=0)
        size, alpha = (8, 200) if largest <= 300 else (6, 120) if largest <= 3000 else (5, 70)
        outline = pg.mkPen("w", width=0.6) if largest <= 300 else None
        x_max = 1.0
        for order, series in enumerate(self.data.points):
            colour = QColor(model_colour(order))
            fill = QColor(colour)
            fill.setAlpha(alpha)
            item = pg.ScatterPlotItem(x=series.sizes[measure], y=series.f1 * 100,
                                      data=np.array(series.keys, dtype=object), size=size, pxMode=True,
                                      pen=outline, brush=pg.mkBrush(fill), antialias=True,
                                      name=legend_name(series))
            item.sigClicked.connect(self._on_scatter_clicked)
            plot.addItem(item)
            self.scatter_items[series.model] = item
            if len(series):
                x_max = max(x_max, float(series.sizes[measure].max()))
        plot.setXRange(0, x_max * 1.05, padding=0)

    def _draw_bars(self) -> None:
        plot = self.bars_plot
        for item in list(plot.getPlotItem().items):
            if isinstance(item, (pg.BarGraphItem, pg.TextItem, pg.InfiniteLine)):
                plot.removeItem(item)
        self.bar_items, self._bar_geometry = {}, []
        if self.data is None:
            plot.getAxis("bottom").setTicks([[]])
            return
        columns = [*self.data.languages, "average"]
        centres = {column: index + (0.35 if column == "average" else 0.0) for index, column in enumerate(columns)}
        plot.getAxis("bottom").setTicks([[(centres[c], registry.title(c, "Average")) for c in columns]])
        separator = pg.InfiniteLine(pos=(centres["average"] + centres[columns[-2]]) / 2 if len(columns) > 1 else -1,
                                    angle=90, pen=pg.mkPen("#c4c7c5", width=1, style=Qt.PenStyle.DashLine))
        plot.addItem(separator)
        n = max(len(self.data.bars), 1)
        group = 0.8
        width = group / n
        labelled = len(self.data.bars) <= LABELLED_BARS_MAX_MODELS
        font = QFont()
        font.setPointSizeF(7.5)
        for order, bars in enumerate(self.data.bars):
            xs, heights = [], []
            for column in columns:
                scores = bars.average if column == "average" else bars.languages[column]
                if scores is None:
                    continue
                x = centres[column] - group / 2 + (order + 0.5) * width
                xs.append(x)
                heights.append(scores.f1 * 100)
                self._bar_geometry.append((x, width, bars.model, column))
                if labelled:
                    label = pg.TextItem(f"{scores.f1 * 100:.1f}", color=TEXT_COLOUR, anchor=(0.5, 1.0))
                    label.setFont(font)
                    label.setPos(x, scores.f1 * 100)
                    plot.addItem(label)
            colour = model_colour(order)
            item = pg.BarGraphItem(x=np.array(xs), width=width * 0.9, height=np.array(heights),
                                   brush=pg.mkBrush(colour), pen=pg.mkPen(QColor(colour).darker(130), width=0.8),
                                   name=legend_name(bars))
            plot.addItem(item)
            self.bar_items[bars.model] = item
        plot.setXRange(-0.6, centres["average"] + 0.6, padding=0)
        plot.setYRange(0, 109 if labelled else 102, padding=0)

    def _show_selected(self) -> None:
        """A ring around the selected program in every model's scatter."""
        key = self.state.instance_key
        spots = []
        if self.data is not None and key:
            for series in self.data.points:
                point = self.point_of(series.model, key)
                if point is not None:
                    spots.append({"pos": point, "data": key})
        self.ring_item.setData(spots)

    # -- tooltips -------------------------------------------------------------------------
    def _point_tooltip(self, series: ModelPoints, index: int) -> str:
        counts = series.counts[index]
        measure = self.size_measure()
        return (f"<b>{html.escape(series.ids[index])}</b> ({registry.title(series.languages[index])})<br>"
                f"{html.escape(legend_name(series))}: F1 {series.f1[index] * 100:.1f} % "
                f"(P {series.precision[index] * 100:.1f}, R {series.recall[index] * 100:.1f}; "
                f"TP {counts.tp}, FP {counts.fp}, FN {counts.fn})<br>"
                f"{series.sizes[measure][index]:,.0f} {SIZE_MEASURES[measure]}<br><i>click to open</i>")

    def _bar_tooltip(self, model: str, column: str) -> str:
        bars = next(b for b in self.data.bars if b.model == model)
        name = html.escape(legend_name(bars))
        if column == "average":
            s = bars.average
            return (f"<b>{name}</b><br>Average over languages (macro): F1 {s.f1 * 100:.1f} % "
                    f"(P {s.precision * 100:.1f}, R {s.recall * 100:.1f})")
        s = bars.languages[column]
        return (f"<b>{name}</b><br>{registry.title(column)} (micro, {bars.programs[column]:,} programs): "
                f"F1 {s.f1 * 100:.1f} % (P {s.precision * 100:.1f}, R {s.recall * 100:.1f})")


def _plot_widget(title: str, x_label: str, y_label: str, grid: bool) -> pg.PlotWidget:
    plot = pg.PlotWidget(background="w")
    plot.setMinimumSize(220, 200)
    item = plot.getPlotItem()
    item.setTitle(title, color=TEXT_COLOUR, size="10pt")
    item.setMenuEnabled(False)
    item.layout.setContentsMargins(2, 2, 14, 2)  # room for the last x tick label
    item.hideButtons()
    tick_font = QFont()
    tick_font.setPointSizeF(8.5)
    for side in ("left", "bottom"):
        axis = plot.getAxis(side)
        axis.setPen(pg.mkPen(AXIS_COLOUR))
        axis.setTextPen(pg.mkPen(TEXT_COLOUR))
        axis.setTickFont(tick_font)
        axis.setStyle(hideOverlappingLabels=14)  # keep the end labels (0, 100) a few pixels past the edge
    plot.setLabel("bottom", x_label, color=TEXT_COLOUR)
    plot.setLabel("left", y_label, color=TEXT_COLOUR)
    if grid:  # a grid axis drops tick labels that reach past its edge, so the ranges leave room for them
        plot.showGrid(x=False, y=True, alpha=0.15)
    plot.setMouseEnabled(x=False, y=False)
    return plot

