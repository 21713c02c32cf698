"""An evidence packet: one instance as a self-contained HTML file for a bug report or a paper.

`build_evidence(ws, key, models)` gives one HTML document with no external resources (no
scripts, style sheets, fonts or images from elsewhere; the only link is the program's source
URL): the program's facts and provenance, the scores of each model, the call graph as inline
SVG, every edge of the union with what the truth, each model and the latest trace say, the
highlighted source of every file with callers marked by their edge classes, parse problems, the
latest trace run, and a footer naming the tool version, the date and illustrative results.

Source marks follow the workbench's source view: a caller's definition line is tinted by its
worst class and its margin note lists its edges; module-level code has no definition line, so
its edges are marked on their candidate call-site lines (a static guess) instead.
"""
from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from pygments import highlight
from pygments.formatters import HtmlFormatter

from core.dataset.workspace import ModelRow, Workspace
from core.errors import UsageError
from core.languages import registry
from core.records import Edge, Node
from core.report.graph_export import GraphPicture, picture_for, to_svg
from core.report.overlay import OverlayEdge, classify_edges, counts_of
from core.report.palette import EDGE_STYLES
from core.report.program_view import ProgramView, parse_program
from core.report.view_modes import VIEW_MODES, effective_mode, view_mode
from core.scoring.metrics import INSTANCE_RULE, instance_scores
from core.scoring.normalise import MODES
from core.scoring.rules import DEFAULT_RULES, rules_title
from core.symbols import call_site_lines

MODEL_WORDS = {"TP": "predicted ✓", "FP": "predicted ✗", "FN": "missed ✗", None: "—"}
ILLUSTRATIVE_NOTE = "illustrative: answers written by hand for the demo, not real model output"
MUTED = "#6b6f76"
TINT_STRENGTH = 0.14


@dataclass(frozen=True)
class _Mark:
    """One edge noted on a line."""

    cls: str
    caller: str
    callee: str
    module_level: bool


@dataclass(frozen=True, eq=False)
class LoadedInstance(ProgramView):
    """One program with everything the packet and the graph export need, read once, and the models
    they report."""

    models: tuple[ModelRow, ...] = ()  # as given, model A first

    @property
    def model_a(self) -> str | None:
        return self.models[0].name if self.models else None

    @property
    def model_b(self) -> str | None:
        return self.models[1].name if len(self.models) > 1 else None

    def effective_mode(self, mode: str, program: str = "this program") -> tuple[str, str]:
        """(the mode `classify_edges` really draws, why it is not `mode`): see `core.report.view_modes`."""
        return effective_mode(mode, self.model_a, self.model_b, self.overlay.models, self.overlay.trace is not None,
                              program)

    def picture(self, mode: str, title: str = "") -> GraphPicture:
        return picture_for(self.overlay, self.effective_mode(mode)[0], self.model_a, self.model_b, self.groups(),
                           title=title)


def load_instance(ws: Workspace, instance_key: str, models: Sequence[str], modes=MODES,
                  rules: str = DEFAULT_RULES) -> LoadedInstance:
    """Read one instance, the given models' predictions for it and its latest trace run.
    Unknown instances and models are `UsageError`s; a model without a result is left out of the overlay."""
    parsed = parse_program(ws, instance_key)
    if parsed is None:
        raise UsageError(f"no program {instance_key!r} in the workspace {ws.path}")
    known = {row.name: row for row in ws.models()}
    models = list(dict.fromkeys(models))
    unknown = [name for name in models if name not in known]
    if unknown:
        raise UsageError(f"{ws.path}: no model named {unknown[0]!r} (known: {', '.join(sorted(known)) or 'none'})")
    loaded = LoadedInstance.load(ws, instance_key, models, modes, rules, parsed,
                                 models=tuple(known[m] for m in models))
    if loaded is None:  # only without a parsed program, and it was given
        raise UsageError(f"no program {instance_key!r} in the workspace {ws.path}")
    return loaded


def build_evidence(ws: Workspace, instance_key: str, models: Sequence[str], modes=MODES, mode: str = "model") -> str:
    """The evidence packet of one instance as HTML text.

    `models`: the models to report, model A first (and model B second, for `mode="compare"`);
    `mode`: how edges are classed in the graph, the source marks and the edge table (one of
    `core.report.view_modes.VIEW_MODES`; a mode whose inputs are missing falls back to the ground truth,
    and the packet says so).
    """
    if mode not in VIEW_MODES:
        raise UsageError(f"unknown view mode {mode!r} (choose from {', '.join(VIEW_MODES)})")
    return render_evidence(load_instance(ws, instance_key, models, modes), mode)


def render_evidence(loaded: LoadedInstance, mode: str = "model") -> str:
    """The packet of an instance already loaded (see `build_evidence`)."""
    if mode not in VIEW_MODES:
        raise UsageError(f"unknown view mode {mode!r} (choose from {', '.join(VIEW_MODES)})")
    return _Packet(loaded, mode).render()


def _inline_svg(svg: str) -> str:
    """An SVG document as an element inside HTML: no XML declaration, scaled to the page width."""
    if svg.startswith("<?xml"):
        svg = svg.split("?>", 1)[1].lstrip()
    return svg.replace("<svg ", '<svg role="img" style="max-width:100%;height:auto" ', 1)


def tint(colour: str, strength: float = TINT_STRENGTH) -> str:
    """`colour` (#rrggbb) laid lightly over white."""
    channels = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(255 + (c - 255) * strength):02x}" for c in channels)


def tool_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("traceeval-studio")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


class _Packet:
    """The HTML of one loaded instance in one view mode."""

    def __init__(self, loaded: LoadedInstance, mode: str) -> None:
        self.loaded = loaded
        self.instance, self.overlay, self.symbols = loaded.instance, loaded.overlay, loaded.symbols
        self.sources, self.unreadable = loaded.sources, loaded.unreadable
        self.models, self.predictions = loaded.models, loaded.predictions
        self.model_a, self.model_b = loaded.model_a, loaded.model_b
        self.modes = loaded.overlay.modes
        self.mode, (self.shown_mode, self.fallback_reason) = mode, loaded.effective_mode(mode)
        self.shown = self.overlay.shown()  # edges beyond the bound are summarised; scores count them all
        self.classes: dict[Edge, str] = classify_edges(self.overlay, self.shown_mode, self.model_a, self.model_b,
                                                       self.shown.edges)

    def render(self) -> str:
        instance = self.instance
        svg = _inline_svg(to_svg(self.loaded.picture(self.mode)))
        title = f"{instance.key}: TraceEval evidence"
        body = "\n".join([self._header(), self._scores(), self._graph(svg), self._edges(), self._source(),
                          self._problems(), self._trace(), self._footer()])
        return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
                f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
                f'<meta name="generator" content="TraceEval Studio {_e(tool_version())}">\n'
                f"<title>{_e(title)}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<main>\n{body}\n"
                f"</main>\n</body>\n</html>\n")

    # -- sections -------------------------------------------------------------------------
    def _header(self) -> str:
        instance = self.instance
        provenance = instance.provenance
        url = provenance.source_url
        source = (f'<a href="{_e(url)}">{_e(url)}</a>' if url.startswith(("http://", "https://"))
                  else _e(url) if url else '<span class="muted">not given</span>')
        truth = self.overlay.truth_edges()
        facts = [
            ("Program", f"<code>{_e(instance.key)}</code>"),
            ("Language", _e(registry.title(instance.language, instance.language))),
            ("Split", _e(instance.split) if instance.split else '<span class="muted">no split file names it</span>'),
            ("Repository", _e(instance.repo)),
            ("Source", source),
            ("Original file", f"<code>{_e(provenance.original_file)}</code>" if provenance.original_file
             else '<span class="muted">not given</span>'),
            ("Files", f"{len(instance.files)} (entry point <code>{_e(instance.entry_point)}</code>)"),
            ("Ground truth", f"{len(instance.ground_truth.keys)} functions, {len(truth)} edges after normalisation"),
            ("Models", ", ".join(self._model_name(row) for row in self.models) or '<span class="muted">none</span>'),
            ("Rules", _e(rules_title(self.overlay.rules))),
            ("Normalisation", _e(", ".join(sorted(self.modes)) or "off (names compared exactly)")),
            ("Edges classed by", self._mode_text()),
        ]
        rows = "".join(f"<tr><th>{name}</th><td>{value}</td></tr>" for name, value in facts)
        return (f'<header>\n<p class="kicker">TraceEval evidence packet</p>\n<h1>{_e(instance.id)}</h1>\n'
                f'<table class="facts">{rows}</table>\n</header>')

    def _mode_text(self) -> str:
        text = _e(self._mode_title(self.shown_mode))
        if self.shown_mode != self.mode:
            text += (f' <span class="warn">(asked for “{_e(self._mode_title(self.mode))}”, but '
                     f"{_e(self.fallback_reason)}; showing the ground truth)</span>")
        return text

    def _mode_title(self, mode: str) -> str:
        return view_mode(mode).description.format(a=self.model_a or "model A", b=self.model_b or "model B")

    def _model_name(self, row: ModelRow) -> str:
        letter = ""
        if row.name == self.model_a and self.model_b:
            letter = ' <span class="tag a">A</span>'
        elif row.name == self.model_b:
            letter = ' <span class="tag b">B</span>'
        return f"<b>{_e(row.name)}</b>{' †' if row.illustrative else ''}{letter}"

    def _scores(self) -> str:
        if not self.models:
            return '<section><h2>Scores</h2><p class="muted">No model given: the ground truth alone.</p></section>'
        rows = []
        for row in self.models:
            counts = counts_of(self.overlay, row.name)
            if counts is None:
                rows.append(f'<tr><td>{self._model_name(row)}</td><td colspan="6" class="muted">no result for '
                            f"this program (not scored)</td></tr>")
                continue
            scores = instance_scores(counts)
            cells = "".join(f'<td class="num" data-metric="{name}" data-value="{value!r}">{_pct(value)}</td>'
                            for name, value in (("precision", scores.precision), ("recall", scores.recall),
                                                ("f1", scores.f1)))
            cells += "".join(f'<td class="num" data-metric="{name}" data-value="{value}">{value}</td>'
                             for name, value in (("tp", counts.tp), ("fp", counts.fp), ("fn", counts.fn)))
            rows.append(f'<tr data-model="{_e(row.name)}"><td>{self._model_name(row)}</td>{cells}</tr>')
        compare = ""
        if self.shown_mode == "compare":
            if self.model_a is None or self.model_b is None:
                raise ValueError("the compare mode is shown only with model A and model B")  # see effective_mode
            groups = self.overlay.compare(self.model_a, self.model_b)
            chips = " ".join(f'<span class="chip" style="{_chip_style(cls)}">{_e(EDGE_STYLES[cls].label)} '
                             f"{len(groups[cls])}</span>" for cls in view_mode("compare").classes)
            compare = f'<p class="chips">{chips}</p>'
        return (f"<section>\n<h2>Scores</h2>\n<table class=\"scores\"><thead><tr><th>Model</th><th>P</th><th>R</th>"
                f"<th>F1</th><th>TP</th><th>FP</th><th>FN</th></tr></thead><tbody>{''.join(rows)}</tbody></table>\n"
                f"{compare}<p class=\"note\">Per-program scores after normalisation; rule: {_e(INSTANCE_RULE)}. "
                f"TP: predicted and in the ground truth; FP: predicted, not in the ground truth; FN: in the ground "
                f"truth, not predicted.</p>\n</section>")

    def _graph(self, svg: str) -> str:
        return (f'<section>\n<h2>Call graph</h2>\n<p class="note">Nodes are coloured by the file that defines '
                f"them; edges by class ({_e(self._mode_title(self.shown_mode))}).</p>\n"
                f'<div class="graph">{svg}</div>\n</section>')

    def _edges(self) -> str:
        order: dict[str | None, int] = {cls: i for i, cls in enumerate(view_mode(self.shown_mode).worst_first)}
        edges = sorted(self.shown.edges, key=lambda e: (order.get(self.classes.get(e.edge), len(order)),
                                                        e.caller, e.callee))
        model_heads = "".join(f"<th>{_e(row.name)}</th>" for row in self.models)
        rows = [self._edge_row(edge) for edge in edges]
        if self.shown.omitted_edges:
            rows.append(f'<tr class="omitted"><td colspan="{5 + len(self.models)}" class="muted">'
                        f"{_e(self.shown.summary())}</td></tr>")
        if not rows:
            rows.append(f'<tr><td colspan="{5 + len(self.models)}" class="muted">No edges: the ground truth, '
                        f"the models and the trace are all empty.</td></tr>")
        note = ("Every edge of the ground truth, the models and the latest trace, after normalisation; worst "
                "class first. Names link to their definition in the source below; names in italics are not "
                "defined in the program. “other”: only another model or the trace has the edge.")
        return (f'<section>\n<h2>Edges</h2>\n<p class="note">{note}</p>\n<table class="edges"><thead><tr>'
                f"<th>Class</th><th>Caller</th><th>Callee</th><th>Truth</th>{model_heads}<th>Latest trace</th>"
                f"</tr></thead><tbody>\n{''.join(rows)}</tbody></table>\n</section>")

    def _name_link(self, name: str) -> str:
        """The name, linked to its definition line in the source section when the program defines it."""
        node = self._place(name)
        if node is None:
            return f'<code class="unplaced" title="not defined in this program\'s source">{_e(name)}</code>'
        line = node.start_line if node.kind != "module" else 1
        return f'<a class="def" href="#{_line_id(node.file, line)}"><code>{_e(name)}</code></a>'

    def _edge_row(self, edge: OverlayEdge) -> str:
        cls = self.classes.get(edge.edge)
        if cls is None:
            class_cell = ('<td class="muted" title="Not drawn in this view: only another model or the trace has '
                          'this edge">other</td>')
        else:
            style = EDGE_STYLES[cls]
            class_cell = (f'<td class="cls" style="color:{style.colour};background:{tint(style.colour)}" '
                          f'title="{_e(style.description)}">{_e(style.label)}</td>')
        cells = [class_cell, f"<td>{self._name_link(edge.caller)}</td>", f"<td>{self._name_link(edge.callee)}</td>",
                 "<td>in truth</td>" if edge.truth else '<td class="muted">—</td>']
        for row in self.models:
            if row.name not in self.overlay.models:
                cells.append('<td class="muted">no result</td>')
                continue
            kind = edge.kind(row.name)
            colour = MUTED if kind is None else EDGE_STYLES["TP" if kind == "TP" else "FP"].colour
            cells.append(f'<td style="color:{colour}">{MODEL_WORDS[kind]}</td>')
        if self.overlay.trace is None:
            cells.append('<td class="muted">no run</td>')
        else:
            cells.append("<td>traced</td>" if edge.traced else '<td class="muted">—</td>')
        return f'<tr data-class="{_e(cls or "")}">{"".join(cells)}</tr>\n'

    def _source(self) -> str:
        marks = self._marks()
        parts = [('<section>\n<h2>Source</h2>\n<p class="note">Callers are marked on their definition line, '
                  "tinted by their worst class, with their edges in the margin; module-level calls are marked on "
                  "their candidate call-site lines (found statically).</p>")]
        unplaced = [caller for caller in dict.fromkeys(e.caller for e in self.shown.edges if e.edge in self.classes)
                    if self._place(caller) is None]
        if unplaced:
            parts.append(f'<p class="warn">Callers not defined in the program\'s source (not marked): '
                         f"{', '.join(f'<code>{_e(name)}</code>' for name in unplaced)}</p>")
        for problem in self.symbols.problems:
            parts.append(f'<p class="warn">{_e(problem)}</p>')
        for path in self.instance.files:
            entry = ' <span class="muted">(entry point)</span>' if path == self.instance.entry_point else ""
            parts.append(f'<h3 id="{_file_id(path)}" data-file="{_e(path)}"><code>{_e(path)}</code>{entry}</h3>')
            if path in self.sources:
                parts.append(self._file_html(path, self.sources[path], marks.get(path, {})))
            else:
                parts.append(f'<p class="warn">Cannot read {_e(path)}: '
                             f"{_e(self.unreadable.get(path, 'unknown error'))}</p>")
        parts.append("</section>")
        return "\n".join(parts)

    def _place(self, name: str) -> Node | None:
        return self.loaded.place(name)

    def _marks(self) -> dict[str, dict[int, list[_Mark]]]:
        marks: dict[str, dict[int, list[_Mark]]] = {}
        for edge in self.shown.edges:
            cls = self.classes.get(edge.edge)
            if cls is None:
                continue
            node = self._place(edge.caller)
            if node is None:
                continue
            file_marks = marks.setdefault(node.file, {})
            if node.kind == "module":
                for line in call_site_lines(self.symbols, self.sources, edge.caller, edge.callee):
                    file_marks.setdefault(line, []).append(_Mark(cls, edge.caller, edge.callee, True))
            else:
                file_marks.setdefault(node.start_line, []).append(_Mark(cls, edge.caller, edge.callee, False))
        return marks

    def _file_html(self, path: str, text: str, marks: dict[int, list[_Mark]]) -> str:
        lexer = registry.lexer_class(self.instance.language)(stripnl=False, ensurenl=True, tabsize=0)
        lines = highlight(text, lexer, HtmlFormatter(noclasses=True, nowrap=True, style="default")).split("\n")
        count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        order = view_mode(self.shown_mode).worst_first
        rows = []
        for number in range(1, count + 1):
            code = lines[number - 1] if number - 1 < len(lines) else ""
            line_marks = marks.get(number)
            if not line_marks:
                rows.append(f'<tr id="{_line_id(path, number)}"><td class="ln">{number}</td><td class="bar"></td>'
                            f'<td class="code">{code}</td><td class="margin"></td></tr>')
                continue
            worst = min((m.cls for m in line_marks), key=lambda c: order.index(c) if c in order else len(order))
            colour = EDGE_STYLES[worst].colour
            callers = list(dict.fromkeys(m.caller for m in line_marks))
            notes = []
            for caller in callers:
                mine = sorted((m for m in line_marks if m.caller == caller),
                              key=lambda m: (order.index(m.cls) if m.cls in order else len(order), m.callee))
                where = " (module level)" if mine[0].module_level else ""
                items = "".join(f'<li data-class="{m.cls}"><b style="color:{EDGE_STYLES[m.cls].colour}">'
                                f"{_e(EDGE_STYLES[m.cls].label)}</b> → <code>{_e(m.callee)}</code></li>"
                                for m in mine)
                notes.append(f'<div class="caller"><code>{_e(caller)}</code>{where}</div><ul>{items}</ul>')
            rows.append(f'<tr id="{_line_id(path, number)}" class="marked" data-class="{worst}" '
                        f'style="background:{tint(colour)}"><td class="ln">{number}</td>'
                        f'<td class="bar" style="background:{colour}"></td><td class="code">{code}</td>'
                        f'<td class="margin">{"".join(notes)}</td></tr>')
        return f'<div class="source"><table class="source">{"".join(rows)}</table></div>'

    def _problems(self) -> str:
        items = []
        for row in self.models:
            prediction = self.predictions.get(row.name)
            if prediction is None:
                items.append(f"<li><b>{_e(row.name)}</b>: no result for this program</li>")
            elif prediction.parse_problems:
                problems = "".join(f"<li>{_e(p)}</li>" for p in prediction.parse_problems)
                items.append(f"<li><b>{_e(row.name)}</b>:<ul>{problems}</ul></li>")
            else:
                items.append(f'<li><b>{_e(row.name)}</b>: <span class="muted">none</span></li>')
        body = f"<ul>{''.join(items)}</ul>" if items else '<p class="muted">No model given.</p>'
        return f"<section>\n<h2>Parse problems</h2>\n{body}\n</section>"

    def _trace(self) -> str:
        run, row, diff = self.overlay.trace, self.loaded.run, self.overlay.trace_diff()
        if run is None or row is None or diff is None:
            return ('<section>\n<h2>Latest trace run</h2>\n<p class="muted">No trace run is stored for this program '
                    "in the workspace.</p>\n</section>")
        facts = [("Status", f"<b>{_e(run.status)}</b>: {_e(run.message)}"),
                 ("Tracer", f"{_e(run.tracer)} {_e(run.tracer_version)}"),
                 ("Started", f"{_e(run.started_at)} ({run.duration_s:.2f} s)"),
                 ("Edges", (f"{len(run.edges)} seen; against the ground truth: {len(diff.tp)} agree, "
                            f"{len(diff.fp)} trace only, {len(diff.fn)} not traced")),
                 ("Unresolved frames", str(len(run.unresolved)))]
        if run.sandbox:
            facts.append(("Sandbox", _e(run.sandbox)))
        for warning in run.warnings:
            facts.append(("Warning", _e(warning)))
        rows = "".join(f"<tr><th>{name}</th><td>{value}</td></tr>" for name, value in facts)
        return f'<section>\n<h2>Latest trace run</h2>\n<table class="facts">{rows}</table>\n</section>'

    def _footer(self) -> str:
        made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        notes = [f"Made with TraceEval Studio {_e(tool_version())} on {made}."]
        for row in self.models:
            if row.illustrative:  # the model's own note says it best; else the standard wording
                note = _e(row.note) if row.note else f"{ILLUSTRATIVE_NOTE}."
                notes.append(f"† <b>{_e(row.name)}</b> is illustrative: {note}")
        notes.append("Ground-truth edges were witnessed by running the program under a tracer: a real call the "
                     "harness never ran counts as a false positive.")
        return "<footer>\n" + "\n".join(f"<p>{note}</p>" for note in notes) + "\n</footer>"


def _file_id(path: str) -> str:
    return "file-" + "".join(c if c.isalnum() else "-" for c in path)


def _line_id(path: str, line: int) -> str:
    return f"{_file_id(path)}-L{line}"


def _chip_style(cls: str) -> str:
    colour = EDGE_STYLES[cls].colour
    return f"color:{colour};border-color:{colour};background:{tint(colour)}"


STYLE = """\
body { margin: 0; background: #f6f7f9; color: #1f2328;
  font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 40px; background: #ffffff; }
h1 { margin: 0 0 12px; font-size: 26px; }
h2 { margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 1px solid #e3e5e8; font-size: 19px; }
h3 { margin: 22px 0 6px; font-size: 15px; }
code, .code { font-family: "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
a { color: #1565c0; }
.kicker { margin: 0; color: #6b6f76; text-transform: uppercase; letter-spacing: .06em; font-size: 12px; }
.muted { color: #6b6f76; }
.warn { color: #8a5a00; }
.note { color: #6b6f76; font-size: 13px; margin: 4px 0 10px; }
table { border-collapse: collapse; }
table.facts th { text-align: left; font-weight: 600; color: #4a4f57; padding: 2px 18px 2px 0; vertical-align: top;
  white-space: nowrap; }
table.facts td { padding: 2px 0; }
table.scores th, table.scores td, table.edges th, table.edges td { padding: 4px 10px; border-bottom: 1px solid #eceef1;
  text-align: left; }
table.scores thead th, table.edges thead th { background: #f1f3f4; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.scores th:not(:first-child) { text-align: right; }
td.cls { font-weight: 600; white-space: nowrap; }
table.edges { width: 100%; font-size: 13px; }
table.edges code { font-size: 12px; word-break: break-all; }
table.edges a.def { color: inherit; text-decoration: none; border-bottom: 1px dotted #9aa0a6; }
table.edges code.unplaced { color: #6b6f76; font-style: italic; }
tr:target td { outline: 2px solid #1565c0; outline-offset: -2px; }
.tag { display: inline-block; padding: 0 5px; border-radius: 3px; color: #fff; font-size: 11px; font-weight: 700; }
.tag.a { background: #1565c0; }
.tag.b { background: #ef6c00; }
.chips { margin: 10px 0 4px; }
.chip { display: inline-block; margin-right: 6px; padding: 1px 10px; border: 1px solid; border-radius: 10px;
  font-weight: 600; font-size: 13px; }
.graph { border: 1px solid #e3e5e8; border-radius: 4px; padding: 6px; overflow: auto; }
.source { border: 1px solid #e3e5e8; border-radius: 4px; overflow-x: auto; }
table.source { width: 100%; }
table.source td { padding: 0; vertical-align: top; }
td.ln { width: 1%; padding: 0 8px 0 10px !important; text-align: right; color: #9aa0a6; background: #f6f7f9;
  font: 12px/20px "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; user-select: none; }
td.bar { width: 4px; min-width: 4px; }
td.code { white-space: pre; tab-size: 4; line-height: 20px; height: 20px; padding-left: 10px !important; }
td.margin { width: 32%; min-width: 240px; padding: 2px 10px !important; font-size: 12px; line-height: 1.35;
  border-left: 1px solid #eceef1; }
tr.marked td.ln { color: #202124; font-weight: 700; }
td.margin .caller { color: #4a4f57; margin-top: 2px; }
td.margin ul { list-style: none; margin: 0 0 4px; padding: 0 0 0 8px; }
td.margin code { font-size: 11.5px; word-break: break-all; }
section ul { margin: 4px 0; }
footer { margin-top: 36px; padding-top: 10px; border-top: 1px solid #e3e5e8; color: #6b6f76; font-size: 12.5px; }
footer p { margin: 4px 0; }
@media print { body { background: #fff; } main { padding: 0; } .graph, .source { overflow: visible; } }
"""
