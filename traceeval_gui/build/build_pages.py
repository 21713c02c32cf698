"""The build wizard's pages: what each shows and holds. The wizard (`build_wizard`) runs the jobs and
moves between them; a page only lays out its widgets and turns core data into rows and text."""
from __future__ import annotations

import html
import os
from pathlib import Path

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from core import traces
from core.errors import UsageError
from core.instances.pipeline import BuildOptions
from core.instances.records import Attempt, Candidate, CandidateProblem, RepoInfo
from core.languages import registry
from core.llm.endpoints import KEY_ENV_VARS, RunSettings
from core.traces import TraceRun
from traceeval_gui.build.build_parts import (
    AMBER,
    GREEN,
    RED,
    SORT_ROLE,
    HarnessEditor,
    Row,
    RowsModel,
    SourceView,
    TracedGraphView,
    reason_words,
)
from traceeval_gui.theme.style import MUTED_TEXT, monospace_font
from traceeval_gui.theme.trace_text import STATUS_COLOURS, status_title
from traceeval_gui.widgets.elided_label import ElidedLabel
from traceeval_gui.widgets.form_parts import caption, layout_widget, muted, spin_box

DEFAULTS = BuildOptions(registry.names()[0])  # only its numbers are read: any language will do
DEFAULT_BASE_URL = "http://localhost:8000/v1"


def table_view(model, stretch: int, sortable: bool = False) -> QTableView:
    view = QTableView()
    if sortable:
        proxy = QSortFilterProxyModel(view)
        proxy.setSourceModel(model)
        proxy.setSortRole(SORT_ROLE)
        view.setModel(proxy)
        view.setSortingEnabled(True)
        view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # as given until a header is clicked
    else:
        view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.setTabKeyNavigation(False)  # Tab moves on to the next widget
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
    header = view.horizontalHeader()
    header.setHighlightSections(False)
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    return view


def path_row(edit: QLineEdit, button: QPushButton) -> QWidget:
    widget = QWidget()
    row = QHBoxLayout(widget)
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(edit, 1)
    row.addWidget(button)
    return widget



# -- 1. the repository ------------------------------------------------------------------------

class RepositoryPage(QWidget):
    title = "Repository"

    def __init__(self, recent_endpoints: list[dict], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folder_edit = QLineEdit()
        self.folder_edit.setPlaceholderText("the repository's folder (a git checkout or any folder)")
        self.folder_button = QPushButton("B&rowse…")
        self.language_combo = QComboBox()
        for language in registry.names():
            self.language_combo.addItem(registry.title(language), language)
        self.language_hint = muted()
        self.language_hint.setWordWrap(False)
        self.out_edit = QLineEdit()
        self.out_edit.setPlaceholderText("the dataset folder to add programs to (created)")
        self.out_button = QPushButton("Bro&wse…")
        self.out_hint = muted()
        self.out_hint.setWordWrap(False)  # one line (a wrapping label in a form row takes extra height)

        source = QGroupBox("Repository")
        form = QFormLayout(source)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        language_row = QHBoxLayout()
        language_row.addWidget(self.language_combo)
        language_row.addWidget(self.language_hint, 1)
        for text, row, field in (("&Folder:", path_row(self.folder_edit, self.folder_button), self.folder_edit),
                                 ("&Language:", layout_widget(language_row), self.language_combo),
                                 ("&Output dataset:", path_row(self.out_edit, self.out_button), self.out_edit)):
            form.addRow(text, row)
            form.labelForField(row).setBuddy(field)  # the mnemonic goes to the field, not its row
        form.addRow("", self.out_hint)

        endpoint = QGroupBox("Model that writes harnesses (optional: you can write a harness by hand)")
        form = QFormLayout(endpoint)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.url_combo = QComboBox()
        self.url_combo.setEditable(True)
        self.url_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        urls = [entry.get("base_url", "") for entry in recent_endpoints if entry.get("base_url")]
        self.url_combo.addItems(list(dict.fromkeys(urls)))
        self.url_combo.setEditText(urls[0] if urls else "")
        self.url_combo.lineEdit().setPlaceholderText(f"OpenAI-compatible base URL, e.g. {DEFAULT_BASE_URL}")
        self.model_edit = QLineEdit(recent_endpoints[0].get("model", "") if recent_endpoints else "")
        self.model_edit.setPlaceholderText("model id, e.g. gpt-4o-mini or Qwen/Qwen2.5-Coder-32B-Instruct")
        self.key_env_edit = QLineEdit(recent_endpoints[0].get("api_key_env") or "" if recent_endpoints else "")
        self.key_env_edit.setPlaceholderText(f"variable holding the API key (empty: ${KEY_ENV_VARS[0]}, "
                                             f"${KEY_ENV_VARS[1]}, a saved key, or none)")
        form.addRow("Base &URL:", self.url_combo)
        form.addRow("&Model:", self.model_edit)
        form.addRow("API &key variable:", self.key_env_edit)

        limits = QGroupBox("Acceptance")
        grid = QHBoxLayout(limits)
        self.min_callees_spin = spin_box(1, 100, DEFAULTS.min_callees,
                                      "a target calls at least this many of the repository's functions (statically)")
        self.min_edges_spin = spin_box(1, 1000, DEFAULTS.min_edges,
                                    "the traced runs must show at least this many internal edges")
        self.runs_spin = spin_box(2, 20, DEFAULTS.runs, "runs per harness; all must see the same edges")
        self.timeout_spin = QDoubleSpinBox()
        self.timeout_spin.setRange(0.5, 600.0)
        self.timeout_spin.setDecimals(1)
        self.timeout_spin.setValue(DEFAULTS.timeout_s)
        self.timeout_spin.setSuffix(" s")
        self.timeout_spin.setToolTip("wall-clock limit of one run")
        for text, spin in (("Min &callees", self.min_callees_spin), ("Min internal &edges", self.min_edges_spin),
                           ("Ru&ns", self.runs_spin), ("&Timeout", self.timeout_spin)):
            label = QLabel(text)
            label.setBuddy(spin)
            grid.addWidget(label)
            grid.addWidget(spin)
            grid.addSpacing(14)
        grid.addStretch(1)

        self.error_label = QLabel()
        self.error_label.setStyleSheet(f"color: {RED};")
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.hide()
        intro = muted("Turn one repository into verified benchmark programs: find its candidate targets (functions, "
                      "methods and classes calling enough of its own code), get a harness for one from a model or "
                      "write it yourself, trace it several times, and accept it only when every run finished, all "
                      "runs saw the same edges and enough internal edges. Accepted programs are written to the "
                      "output dataset in the released TraceEval layout, exactly as <code>traceeval build</code> "
                      "writes them.")
        intro.setTextFormat(Qt.TextFormat.RichText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(intro)
        layout.addSpacing(6)
        layout.addWidget(source)
        layout.addWidget(endpoint)
        layout.addWidget(limits)
        layout.addWidget(self.error_label)
        layout.addStretch(1)
        self.language_combo.currentIndexChanged.connect(self.update_out_hint)
        self.out_edit.textChanged.connect(self.update_out_hint)

    @property
    def language(self) -> str:
        return self.language_combo.currentData()

    def options(self) -> BuildOptions:
        return BuildOptions(self.language, min_callees=self.min_callees_spin.value(),
                            min_edges=self.min_edges_spin.value(), runs=self.runs_spin.value(),
                            timeout_s=self.timeout_spin.value())

    def endpoint(self) -> RunSettings | None:
        """The endpoint given on this page; None when none is; UsageError when it is half given."""
        url, model = self.url_combo.currentText().strip(), self.model_edit.text().strip()
        if not url and not model:
            return None
        if not url:
            raise UsageError(f"model {model!r} given without the endpoint's base URL")
        if not model:
            raise UsageError("the endpoint's base URL is given without a model id")
        return RunSettings(url, model, api_key_env=self.key_env_edit.text().strip() or None)

    def update_out_hint(self, *_args) -> None:
        if not self.out_edit.text().strip():
            self.out_hint.setText("")
            return
        self.out_hint.setText(f"programs go to benchmark/{self.language}/ in it, split files to traceeval_split/, "
                              "rejections and logs to build/")

    def show_counts(self, counts: dict[str, int]) -> None:
        parts = [f"{counts[language]:,} {registry.title(language)}" for language in registry.names()]
        self.language_hint.setText(f"source files: {', '.join(parts)}")

    def show_error(self, message: str) -> None:
        self.error_label.setText(message)
        self.error_label.setVisible(bool(message))


# -- 2. candidates ----------------------------------------------------------------------------

class CandidatesPage(QWidget):
    title = "Candidates"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary_label = ElidedLabel()
        self.model = RowsModel(("Status", "Target", "Kind", "File:line", "Callees", "Files"), self, numeric=(4, 5))
        self.table = table_view(self.model, 1)
        self.table.setMinimumWidth(420)
        self.table.setTextElideMode(Qt.TextElideMode.ElideLeft)
        self.problems_model = RowsModel(("Target", "File", "Why", "Detail"), self)
        self.problems_table = table_view(self.problems_model, 3)
        self.problems_caption = caption("Cannot stand alone")
        self.details = QTextBrowser()
        self.details.setOpenLinks(False)
        self.details.setFrameShape(QFrame.Shape.NoFrame)

        top = QWidget()
        column = QVBoxLayout(top)
        column.setContentsMargins(0, 0, 0, 0)
        candidates_caption = caption("&Candidates")
        candidates_caption.setBuddy(self.table)
        column.addWidget(candidates_caption)
        column.addWidget(self.table)
        bottom = QWidget()
        column = QVBoxLayout(bottom)
        column.setContentsMargins(0, 6, 0, 0)
        column.addWidget(self.problems_caption)
        column.addWidget(self.problems_table)
        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(top)
        left.addWidget(bottom)
        left.setStretchFactor(0, 3)
        left.setStretchFactor(1, 1)
        left.setSizes([460, 160])
        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(6, 0, 0, 0)
        column.addWidget(caption("Selected candidate"))
        column.addWidget(self.details)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([700, 420])
        for s in (left, splitter):
            s.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary_label)
        layout.addWidget(splitter, 1)

    def show_candidates(self, repo: RepoInfo, language: str, candidates: tuple[Candidate, ...],
                        problems: tuple[CandidateProblem, ...], marks: dict[str, Attempt]) -> None:
        where = f" @ {repo.commit[:10]}" + (" (uncommitted changes)" if repo.dirty else "") if repo.commit else ""
        licence = repo.licence or ("licence unrecognised" if repo.licence_file else "no licence file")
        self.summary_label.setText(f"{repo.name}{where} · {registry.title(language)} · {len(candidates):,} "
                                   f"candidate{'s' if len(candidates) != 1 else ''} · {len(problems):,} cannot stand "
                                   f"alone · {licence}")
        self.summary_label.setToolTip(repo.url)
        self.model.set_rows([self.candidate_row(c, marks.get(c.name)) for c in candidates])
        self.problems_model.set_rows([Row((p.name, p.file, reason_words(p.reason), p.detail), p,
                                          tips={2: p.reason, 3: p.detail}) for p in problems])
        self.problems_caption.setText(f"Cannot stand alone ({len(problems):,})")
        self.problems_table.setVisible(bool(problems))
        if candidates:
            self.table.selectRow(0)
        else:
            self.details.setHtml(f"<p style='color:{MUTED_TEXT}'>No candidates: lower “Min callees” on the "
                                 "Repository page, or see why the targets found cannot stand alone.</p>")

    @staticmethod
    def candidate_row(candidate: Candidate, mark: Attempt | None) -> Row:
        status, colour, tip = "", None, None
        if mark is not None and mark.accepted:
            status, colour, tip = "✓ accepted", GREEN, "accepted and written to the output dataset"
        elif mark is not None:
            status, colour = f"✗ {mark.reason.replace('_', ' ')}", RED
            tip = f"rejected: {reason_words(mark.reason)}" + (f": {mark.detail}" if mark.detail else "")
        location = f"{candidate.original_file}:{candidate.line}"
        cells = (status, candidate.name, candidate.kind, location, str(len(candidate.internal_callees)),
                 str(len(candidate.files)))
        return Row(cells, candidate, colours={0: colour} if colour else None, tips={0: tip} if tip else None)

    def set_mark(self, name: str, mark: Attempt) -> None:
        for row, item in enumerate(self.model.rows):
            if item.payload.name == name:
                self.model.update_row(row, self.candidate_row(item.payload, mark))

    def selected(self) -> Candidate | None:
        index = self.table.currentIndex()
        return self.model.payload(index.row()) if index.isValid() and self.table.selectionModel().hasSelection() \
            else None

    def select(self, name: str) -> None:
        for row, item in enumerate(self.model.rows):
            if item.payload.name == name:
                self.table.selectRow(row)
                self.table.scrollTo(self.model.index(row, 0))

    def show_details(self, candidate: Candidate | None, mark: Attempt | None) -> None:
        if candidate is None:
            self.details.setHtml(f"<p style='color:{MUTED_TEXT}'>Select a candidate.</p>")
            return
        e = html.escape
        parts = [(f"<p><b style='font-size:large'>{e(candidate.name)}</b><br>{e(candidate.kind)} in "
                  f"<code>{e(candidate.file)}</code> line {candidate.line}")]
        if candidate.original_file != candidate.file:
            parts.append(f"<br><span style='color:{MUTED_TEXT}'>repository file "
                         f"<code>{e(candidate.original_file)}</code></span>")
        parts.append("</p>")
        if mark is not None:
            colour = GREEN if mark.accepted else RED
            said = "accepted" if mark.accepted else f"rejected: {e(reason_words(mark.reason))}"
            detail = f" ({e(mark.detail)})" if mark.detail else ""
            parts.append(f"<p style='color:{colour}'>Already {said}{detail}</p>")
        parts.append(f"<h4>Internal callees ({len(candidate.internal_callees)})</h4><ul style='margin-left:-20px'>")
        parts += [f"<li><code>{e(name)}</code></li>" for name in candidate.internal_callees]
        parts.append("</ul>")
        if candidate.members:
            parts.append(f"<h4>Members ({len(candidate.members)})</h4><ul style='margin-left:-20px'>")
            parts += [f"<li><code>{e(name)}</code></li>" for name in candidate.members]
            parts.append("</ul>")
        parts.append(f"<h4>Files its program needs ({len(candidate.files)})</h4>"
                     "<table cellspacing='0' cellpadding='2'>")
        for program_path, repo_path in candidate.files.items():
            moved = f" <span style='color:{MUTED_TEXT}'>← {e(repo_path)}</span>" if repo_path != program_path else ""
            parts.append(f"<tr><td><code>{e(program_path)}</code>{moved}</td></tr>")
        parts.append("</table>")
        self.details.setHtml("".join(parts))


# -- 3. the harness ---------------------------------------------------------------------------

class HarnessPage(QWidget):
    title = "Harness"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.target_label = ElidedLabel()
        self.ask_button = QPushButton("&Ask Model")
        self.ask_button.setToolTip("Send the prompt (see the Prompt tab) to the endpoint of the Repository page; "
                                   "the answer replaces the editor's text (Ctrl+Z brings it back)")
        self.editor = HarnessEditor()
        self.editor.setPlaceholderText("Write the harness here, or Ask Model (Alt+A).")
        self.prompt_view = SourceView()
        self.file_list = QListWidget()
        self.file_list.setMaximumWidth(260)
        self.file_view = SourceView()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.editor, "Harness")
        self.tabs.addTab(self.prompt_view, "Prompt")
        files = QSplitter(Qt.Orientation.Horizontal)
        files.addWidget(self.file_list)
        files.addWidget(self.file_view)
        files.setStretchFactor(1, 1)
        files.setChildrenCollapsible(False)
        self.tabs.addTab(files, "Program Files")
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        top = QHBoxLayout()
        top.addWidget(self.target_label, 1)
        top.addWidget(self.ask_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.status_label)
        self.files: dict[str, str] = {}
        self.language = ""
        self.file_list.currentTextChanged.connect(self._on_file_list_changed)

    def show_candidate(self, candidate: Candidate, language: str, entry_file: str, files: dict[str, str],
                       messages: list[dict[str, str]] | None, prompt_problem: str = "") -> None:
        self.target_label.setText(f"{candidate.name} ({candidate.kind})  ·  entry file {entry_file}")
        self.target_label.setToolTip(f"The harness is the program's entry file {entry_file}: it must exercise "
                                     f"{candidate.name}, defined in {candidate.file}")
        self.tabs.setTabText(0, f"Harness — {entry_file}")
        self.editor.set_language(language)
        self.language, self.files = language, files
        if messages:
            text = "\n\n".join(f"━━ {m['role']} ━━\n\n{m['content']}" for m in messages)
            self.prompt_view.show_text(text, "")
        else:
            self.prompt_view.show_text(f"The prompt cannot be made: {prompt_problem}", "")
        self.file_list.clear()
        self.file_list.addItems(list(files))
        if files:
            self.file_list.setCurrentRow(0)

    def _on_file_list_changed(self, path: str) -> None:
        if path in self.files:
            self.file_view.show_text(self.files[path], self.language if not path.endswith(".json") else "")

    def say(self, text: str, colour: str = MUTED_TEXT) -> None:
        self.status_label.setStyleSheet(f"color: {colour};")
        self.status_label.setText(text)


# -- 4. the traced graph ----------------------------------------------------------------------

class TracePage(QWidget):
    title = "Traced Graph"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.verdict_label = QLabel("Not traced yet.")
        self.verdict_label.setWordWrap(True)
        self.verdict_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.verdict_label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self.trace_button = QPushButton("&Trace Again")
        self.trace_button.setToolTip("Run the harness under the tracer again (F5)")
        self.runs_model = RowsModel(("Run", "Status", "Time", "Edges", "Message"), self, numeric=(0, 2, 3))
        self.runs_table = table_view(self.runs_model, 4)
        self.output_caption = caption("Output")
        self.stdout_view = _output_view()
        self.stderr_view = _output_view()
        self.output_tabs = QTabWidget()
        self.output_tabs.setDocumentMode(True)
        self.output_tabs.addTab(self.stdout_view, "stdout")
        self.output_tabs.addTab(self.stderr_view, "stderr")
        self.edges_model = RowsModel(("Caller", "Callee", "Count", "Lines", "Kind"), self, numeric=(2,))
        self.edges_table = table_view(self.edges_model, 1, sortable=True)
        self.edges_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.edges_table.setTextElideMode(Qt.TextElideMode.ElideLeft)  # a dotted name's end says the most
        self.graph_view = TracedGraphView()
        self.result_tabs = QTabWidget()
        self.result_tabs.setDocumentMode(True)
        self.result_tabs.addTab(self.edges_table, "Edges")
        self.result_tabs.addTab(self.graph_view, "Graph")
        self.reason_edit = QLineEdit()
        self.reason_edit.setPlaceholderText("why you reject it (optional, one line)")
        self.reason_edit.setMaxLength(300)
        self.reject_button = QPushButton("&Reject")
        self.reject_button.setToolTip("Record the harness as rejected by you (with the reason, when given)")
        self.accept_button = QPushButton("A&ccept")
        self.accept_button.setToolTip("Add the program to the output dataset (only for a harness the runs accepted)")

        left = QWidget()
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(caption("Runs"))
        column.addWidget(self.runs_table, 1)
        column.addWidget(self.output_caption)
        column.addWidget(self.output_tabs, 3)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.result_tabs)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([440, 700])
        splitter.setChildrenCollapsible(False)
        self.banner = QFrame()
        self.banner.setObjectName("verdict")
        banner_row = QHBoxLayout(self.banner)
        banner_row.setContentsMargins(10, 6, 6, 6)
        banner_row.addWidget(self.verdict_label, 1)
        banner_row.addWidget(self.trace_button, 0, Qt.AlignmentFlag.AlignTop)
        decision = QHBoxLayout()
        reason_label = QLabel("Rea&son:")
        reason_label.setBuddy(self.reason_edit)
        decision.addWidget(reason_label)
        decision.addWidget(self.reason_edit, 1)
        decision.addWidget(self.reject_button)
        decision.addSpacing(12)
        decision.addWidget(self.accept_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.banner)
        layout.addWidget(splitter, 1)
        layout.addLayout(decision)
        self.set_banner("", "Not traced yet.")

    def set_banner(self, colour: str, text: str) -> None:
        tint = {GREEN: "#e8f5e9", RED: "#fdecea", AMBER: "#fff4e0"}.get(colour, "#f1f3f4")
        border = colour or "#dadce0"
        self.banner.setStyleSheet(f"QFrame#verdict {{ background: {tint}; border: 1px solid {border}; "
                                  "border-radius: 4px; }")
        self.verdict_label.setText(text)

    def clear(self, message: str) -> None:
        self.set_banner("", message)
        self.runs_model.set_rows([])
        self.edges_model.set_rows([])
        self.stdout_view.setPlainText("")
        self.stderr_view.setPlainText("")
        self.output_caption.setText("Output")
        self.graph_view.clear()
        self.result_tabs.setTabText(0, "Edges")
        self.accept_button.setEnabled(False)

    def show_result(self, attempt: Attempt, runs: tuple[TraceRun, ...], harness_file: str, seconds: float) -> None:
        e = html.escape
        self.verdict_label.setToolTip("")
        if attempt.accepted:
            self.set_banner(GREEN, f"<b style='color:{GREEN}'>Accepted</b> — {e(attempt.detail)} "
                                   f"<span style='color:{MUTED_TEXT}'>({seconds:.1f} s)</span>")
        else:
            self.set_banner(RED, f"<b style='color:{RED}'>Rejected: {e(reason_words(attempt.reason))}</b><br>"
                                 f"{e(attempt.detail)}")
            self.verdict_label.setToolTip(f"reason code: {attempt.reason}")
        self.runs_model.set_rows([
            Row((str(number), status_title(run.status), f"{run.duration_s:.2f} s", str(len(run.edges)),
                 _first_line(run.message)), run, sort=(number, run.status, run.duration_s, len(run.edges), ""),
                colours={1: STATUS_COLOURS.get(run.status, MUTED_TEXT)}, tips={4: run.message})
            for number, run in enumerate(runs, 1)])
        shown = next((i for i, run in enumerate(runs) if run.status != traces.OK), 0 if runs else None)
        if shown is not None:
            run = runs[shown]
            which = "first failing run" if run.status != traces.OK else "first run"
            self.output_caption.setText(f"Output of run {shown + 1} ({which})")
            self.stdout_view.setPlainText(run.stdout_tail or "(nothing printed)")
            self.stderr_view.setPlainText(run.stderr_tail or "(nothing printed)")
            self.output_tabs.setCurrentWidget(self.stderr_view if run.status != traces.OK and run.stderr_tail
                                              else self.stdout_view)
            self.runs_table.selectRow(shown)
            self._show_edges(runs[0], harness_file)
        else:
            self.output_caption.setText("Output")
            self.stdout_view.setPlainText("")
            self.stderr_view.setPlainText("")
            self.edges_model.set_rows([])
            self.graph_view.clear("The program never ran.")
        self.accept_button.setEnabled(attempt.accepted)

    def _show_edges(self, run: TraceRun, harness_file: str) -> None:
        harness_nodes = {node.name for node in run.nodes if node.file == harness_file}
        files = {node.name: node.file for node in run.nodes}
        rows, kinds = [], {}
        for evidence in run.edges:
            kind = "harness" if evidence.caller in harness_nodes or evidence.callee in harness_nodes else "internal"
            kinds[evidence.edge] = kind
            lines = ", ".join(str(line) for line in evidence.lines)
            rows.append(Row((evidence.caller, evidence.callee, f"{evidence.count:,}", lines, kind), evidence,
                            sort=(evidence.caller, evidence.callee, evidence.count, evidence.lines,
                                  (kind != "harness", kind)),
                            colours={4: MUTED_TEXT} if kind == "harness" else None))
        rows.sort(key=lambda row: (row.cells[4] == "harness", row.cells[0], row.cells[1]))
        self.edges_model.set_rows(rows)
        internal = sum(1 for kind in kinds.values() if kind == "internal")
        self.result_tabs.setTabText(0, f"Edges ({internal} internal, {len(kinds) - internal} from the harness)")
        self.graph_view.show_graph(kinds, files, harness_file)


# -- 5. recorded ------------------------------------------------------------------------------

class RecordedPage(QWidget):
    title = "Recorded"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.headline = QLabel()
        font = self.headline.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        self.headline.setFont(font)
        self.headline.setWordWrap(True)
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QPushButton("&Open in Workbench")
        self.open_button.setToolTip("Open the output dataset in the workbench window, with this program selected")
        self.next_button = QPushButton("&Next Candidate")
        self.next_button.setToolTip("The next candidate not yet accepted or rejected")
        self.candidates_button = QPushButton("Back to &Candidates")
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.next_button)
        buttons.addWidget(self.candidates_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 24, 24, 0)
        layout.addWidget(self.headline)
        layout.addSpacing(8)
        layout.addWidget(self.details)
        layout.addSpacing(16)
        layout.addLayout(buttons)
        layout.addStretch(1)

    def show_recorded(self, program_id: str | None, target: str, out: Path, language: str, summary) -> None:
        e = html.escape
        if program_id:
            self.headline.setText(f"{program_id} was added to the dataset")
            self.headline.setStyleSheet(f"color: {GREEN};")
            folder = out / "benchmark" / language / program_id
            where = f"<p>Program folder: <code>{e(str(folder))}</code></p>"
        else:
            self.headline.setText(f"{target} was recorded, but is not in the dataset")
            self.headline.setStyleSheet(f"color: {AMBER};")
            where = ("<p>It was dropped as a near-duplicate of a program kept before it (see "
                     f"<code>{e(str(out / 'build' / f'rejections-{language}.csv'))}</code>).</p>")
        splits = ", ".join(f"{count:,} {split}" for split, count in sorted(summary.splits.items()))
        rejected = sum(summary.rejected.values())
        self.details.setText(
            f"<p>Target <code>{e(target)}</code></p>{where}"
            f"<p>{registry.title(language)} in <code>{e(str(out))}</code>: <b>{summary.accepted:,}</b> "
            f"program{'s' if summary.accepted != 1 else ''} ({e(splits) or 'no split yet'}), {rejected:,} "
            f"rejected attempt{'s' if rejected != 1 else ''} from {summary.repositories:,} "
            f"repositor{'ies' if summary.repositories != 1 else 'y'}.</p>")
        self.open_button.setEnabled(program_id is not None)


# -- helpers ----------------------------------------------------------------------------------

def _output_view() -> QPlainTextEdit:
    view = QPlainTextEdit()
    view.setReadOnly(True)
    view.setFont(monospace_font())
    view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    return view


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0][:200]


def default_out(parent: str, folder: str) -> str:
    name = Path(folder.rstrip("/\\")).name or "repository"
    return os.path.join(parent, name)
