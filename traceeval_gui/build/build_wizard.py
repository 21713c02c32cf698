"""File ▸ Build Instances from Repository: turn one repository into verified benchmark programs, one
candidate at a time, with a person deciding.

Repository (folder, language, output dataset, endpoint, limits) -> Candidates (what can stand alone
and what cannot) -> Harness (ask the model, or write it; editable; the exact prompt is shown) ->
Traced Graph (the runs, their output, the edges and their drawing, the verdict) -> Accept or Reject
-> Recorded. Every step is a `core.instances` function run in a background job (`build_jobs`); the
wizard never blocks on one, and a failure is a one-line message on the page where it happened.
Decisions go to the output dataset at once (`record_attempt`), exactly as `traceeval build` writes.
"""
from __future__ import annotations

import html
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QSettings, Qt
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from core.errors import TraceEvalError
from core.instances.harness import HarnessTemplate
from core.instances.pipeline import harness_messages, program_texts
from core.instances.program_files import harness_path
from core.instances.records import BY_A_PERSON, Attempt, Candidate, Harness
from core.languages import registry
from core.llm.endpoints import RunSettings, load_recent_endpoints, remember_endpoint, resolve_api_key
from traceeval_gui.build.build_jobs import (
    AskedHarness,
    AskHarnessJob,
    CountSourcesJob,
    FindCandidatesJob,
    FoundCandidates,
    RecordAttemptJob,
    RecordedAttempt,
    TracedHarness,
    TraceHarnessJob,
    TraceRuns,
)
from traceeval_gui.build.build_pages import (
    CandidatesPage,
    HarnessPage,
    RecordedPage,
    RepositoryPage,
    TracePage,
    default_out,
)
from traceeval_gui.build.build_parts import AMBER, GREEN, RED, reason_words
from traceeval_gui.state.jobs import Job, JobRunner
from traceeval_gui.theme.style import MUTED_TEXT
from traceeval_gui.widgets.file_dialogs import existing_directory
from traceeval_gui.widgets.window_layout import fit_on_screen

if TYPE_CHECKING:
    from traceeval_gui.state.workbench import Workbench

log = logging.getLogger(__name__)

REPOSITORY, CANDIDATES, HARNESS, TRACE, RECORDED = range(5)
NEXT_TEXTS = {REPOSITORY: "F&ind Candidates", CANDIDATES: "&Write Harness ›", HARNESS: "&Trace ›"}
OUT_PARENT_SETTING, REPO_SETTING = "build/out_parent", "build/repo_folder"
DEFAULT_OUT_PARENT = "~/traceeval-builds"


class BuildWizard(QDialog):
    """One repository at a time. `workbench` (the main window) lets "Open in Workbench" show the result;
    `trace_runs` replaces `tracers.trace_for_build` (for tests of the wizard alone)."""

    def __init__(self, settings: QSettings | None = None, *, jobs: JobRunner | None = None,
                 workbench: Workbench | None = None, trace_runs: TraceRuns | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Build Instances from Repository")
        self.setModal(False)
        self.settings = settings
        self.jobs = jobs if jobs is not None else JobRunner(self)
        self.workbench = workbench
        self.trace_runs = trace_runs
        self.job: Job | None = None  # the one whose result the wizard waits for
        self.found: FoundCandidates | None = None
        self.out: Path | None = None
        self.marks: dict[str, Attempt] = {}  # target -> accepted / rejected attempt (stored ones and this session's)
        self.candidate: Candidate | None = None
        self.files: dict[str, str] = {}
        self.entry_file = ""
        self.messages: list[dict[str, str]] | None = None
        self.drafts: dict[str, str] = {}  # target -> the harness text last in the editor
        self.model_harness: Harness | None = None  # the model's last answer for the candidate
        self.traced: TracedHarness | None = None
        self.recorded: RecordedAttempt | None = None
        self.prompt_problem = ""  # why the prompt cannot be made (a bad template), "" when it can
        self._on_job_cancelled: Callable[[], None] | None = None
        self._out_edited = False  # the person chose the output folder: a new repository does not change it
        self._language_chosen = False  # the person chose the language: counting files does not change it
        self._select_after_open = ""  # program id to select once the workbench has opened the output
        self._counting = ""  # the folder whose source files are being counted
        self._folder = ""  # the repository folder last taken in (set_repository)
        self._find_after_count = False  # Find Candidates was asked for while counting: it runs after

        self.steps = [QLabel() for _ in range(5)]
        self.repository_page = RepositoryPage(load_recent_endpoints())
        self.candidates_page = CandidatesPage()
        self.harness_page = HarnessPage()
        self.trace_page = TracePage()
        self.recorded_page = RecordedPage()
        self.pages = [self.repository_page, self.candidates_page, self.harness_page, self.trace_page,
                      self.recorded_page]
        self.stack = QStackedWidget()
        for page in self.pages:
            self.stack.addWidget(page)
        self.status_label = QLabel()
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress_bar = QProgressBar()
        self.progress_bar.setMaximumWidth(140)
        self.progress_bar.setMaximumHeight(14)
        self.progress_bar.setTextVisible(False)
        self.progress_bar.hide()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop what is running (Esc); a trace run in progress ends by its time limit")
        self.cancel_button.hide()
        self.back_button = QPushButton("‹ &Back")
        self.back_button.setToolTip("The previous step (Alt+B or Alt+Left)")
        self.next_button = QPushButton()
        self.close_button = QPushButton("Close")
        self.close_button.setAutoDefault(False)

        header = QHBoxLayout()
        header.setSpacing(4)
        for index, label in enumerate(self.steps):
            if index:
                arrow = QLabel("›")
                arrow.setStyleSheet(f"color: {MUTED_TEXT};")
                header.addWidget(arrow)
            header.addWidget(label)
        header.addStretch(1)
        footer = QHBoxLayout()
        footer.addWidget(self.progress_bar)
        footer.addWidget(self.status_label, 1)
        footer.addWidget(self.cancel_button)
        footer.addSpacing(12)
        footer.addWidget(self.back_button)
        footer.addWidget(self.next_button)
        footer.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.addLayout(header)
        layout.addSpacing(4)
        layout.addWidget(self.stack, 1)
        layout.addSpacing(4)
        layout.addLayout(footer)

        self._connect()
        self._restore_settings()
        fit_on_screen(self, 1180, 760)
        self.go_to(REPOSITORY)

    # -- wiring ----------------------------------------------------------------------------
    def _connect(self) -> None:
        repo = self.repository_page
        repo.folder_button.clicked.connect(self._on_folder_button_clicked)
        repo.out_button.clicked.connect(self._on_out_button_clicked)
        repo.folder_edit.editingFinished.connect(self._on_folder_edit_finished)
        repo.out_edit.textEdited.connect(self._on_out_edit_edited)
        repo.language_combo.activated.connect(self._on_language_combo_activated)
        candidates = self.candidates_page
        candidates.table.selectionModel().currentRowChanged.connect(self._on_candidates_row_changed)
        candidates.table.doubleClicked.connect(self._on_candidates_double_clicked)
        harness = self.harness_page
        harness.ask_button.clicked.connect(self.ask_model)
        harness.editor.textChanged.connect(self._update_buttons)
        trace = self.trace_page
        trace.trace_button.clicked.connect(self.trace)
        trace.accept_button.clicked.connect(self.accept_harness)
        trace.reject_button.clicked.connect(self.reject_harness)
        trace.reason_edit.returnPressed.connect(self.reject_harness)
        recorded = self.recorded_page
        recorded.open_button.clicked.connect(self.open_in_workbench)
        recorded.next_button.clicked.connect(self.next_candidate)
        recorded.candidates_button.clicked.connect(lambda: self.go_to(CANDIDATES))
        recorded.open_button.setVisible(self.workbench is not None)
        self.back_button.clicked.connect(self.go_back)
        self.next_button.clicked.connect(self.go_next)
        self.close_button.clicked.connect(self.close)
        self.cancel_button.clicked.connect(self.cancel)
        for keys, slot in (("F5", self._on_f5), ("Alt+Right", self.go_next), ("Alt+Left", self.go_back)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.activated.connect(slot)
        if self.workbench is not None:
            self.workbench.state.dataset_opened.connect(self._on_workbench_dataset_opened)

    def _restore_settings(self) -> None:
        parent = self._setting(OUT_PARENT_SETTING) or str(Path(DEFAULT_OUT_PARENT).expanduser())
        self.repository_page.out_edit.setText(parent)

    # -- moving between pages --------------------------------------------------------------
    @property
    def page(self) -> int:
        return self.stack.currentIndex()

    def go_to(self, page: int) -> None:
        self.stack.setCurrentIndex(page)
        for index, label in enumerate(self.steps):
            text = f"{index + 1}  {self.pages[index].title}"
            if index == page:
                label.setText(f"<b>{text}</b>")
                label.setStyleSheet("color: #1a73e8;")
            else:
                label.setText(text)
                label.setStyleSheet(f"color: {'#3c4043' if index < page else MUTED_TEXT};")
        self.next_button.setText(NEXT_TEXTS.get(page, ""))
        self.next_button.setVisible(page in NEXT_TEXTS)
        self.back_button.setVisible(page not in (REPOSITORY, RECORDED))  # Recorded has its own ways on
        self._update_buttons()
        focus = {REPOSITORY: self.repository_page.folder_edit, CANDIDATES: self.candidates_page.table,
                 HARNESS: self.harness_page.editor, TRACE: self.trace_page.result_tabs,
                 RECORDED: self.recorded_page.next_button}[page]
        focus.setFocus()

    def go_next(self) -> None:
        if self.busy or not self.next_button.isVisible() or not self.next_button.isEnabled():
            return
        if self.page == REPOSITORY:
            self.find_candidates()
        elif self.page == CANDIDATES:
            self.write_harness()
        elif self.page == HARNESS:
            self.trace()

    def go_back(self) -> None:
        if self.busy or self.page == REPOSITORY:
            return
        self._keep_draft()
        self.go_to({RECORDED: CANDIDATES}.get(self.page, self.page - 1))

    def _update_buttons(self) -> None:
        busy, page = self.busy, self.page
        has_text = bool(self.harness_page.editor.toPlainText().strip())
        next_ok = {REPOSITORY: True, CANDIDATES: self.candidates_page.selected() is not None,
                   HARNESS: has_text}.get(page, False)
        self.next_button.setEnabled(next_ok and not busy)
        self.back_button.setEnabled(not busy)
        self.harness_page.ask_button.setEnabled(not busy)
        self.harness_page.editor.setReadOnly(busy and page == HARNESS)
        trace = self.trace_page
        trace.trace_button.setEnabled(not busy and has_text)
        traced = self.traced is not None
        trace.accept_button.setEnabled(not busy and traced and self.traced.attempt.accepted)
        trace.reject_button.setEnabled(not busy and self.candidate is not None and has_text)
        recorded = self.recorded_page
        recorded.open_button.setEnabled(not busy and self.recorded is not None and bool(self.recorded.program_id))
        self.repository_page.setEnabled(not busy)
        # Enter does the page's main step: one default button, on the page shown
        default = {TRACE: trace.accept_button if trace.accept_button.isEnabled() else None,
                   RECORDED: recorded.next_button}.get(page, self.next_button)
        for button in (self.next_button, trace.accept_button, recorded.next_button):
            if button is not default:
                button.setDefault(False)
        if default is not None:
            default.setDefault(True)

    # -- 1. the repository -----------------------------------------------------------------
    def _on_folder_button_clicked(self) -> None:
        start = self.repository_page.folder_edit.text().strip() or self._setting(REPO_SETTING) or str(Path.home())
        folder = existing_directory(self, "The repository to build programs from", start)
        if folder:
            self.set_repository(folder)

    def _on_out_button_clicked(self) -> None:
        start = self.repository_page.out_edit.text().strip() or str(Path(DEFAULT_OUT_PARENT).expanduser())
        folder = existing_directory(self, "The dataset folder to add programs to", start)
        if folder:
            self.repository_page.out_edit.setText(folder)
            self._out_edited = True

    def _on_out_edit_edited(self, _text: str) -> None:
        self._out_edited = True

    def _on_language_combo_activated(self, _index: int) -> None:
        self._language_chosen = True

    def _on_folder_edit_finished(self) -> None:
        self.set_repository(self.repository_page.folder_edit.text())

    def set_repository(self, folder: str) -> None:
        """A new repository folder: the output follows its name (unless chosen), the language its files."""
        folder = folder.strip()
        page = self.repository_page
        if page.folder_edit.text() != folder:
            page.folder_edit.setText(folder)
        if folder == self._folder:  # focus moving on (or the page disabled while busy) is no new folder
            return
        self._folder = folder
        page.show_error("")
        if not folder:
            return
        if not self._out_edited:
            parent = self._setting(OUT_PARENT_SETTING) or str(Path(DEFAULT_OUT_PARENT).expanduser())
            page.out_edit.setText(default_out(parent, folder))
        if Path(folder).expanduser().is_dir():
            page.language_hint.setText("counting source files…")
            self._counting = folder
            job = CountSourcesJob(folder)
            job.signals.finished.connect(lambda counts, f=folder: self._on_count_job_finished(f, counts))
            self.jobs.start(job)
        else:
            page.language_hint.setText("")

    def _on_count_job_finished(self, folder: str, counts: dict[str, int]) -> None:
        page = self.repository_page
        if page.folder_edit.text().strip() != folder or self._counting != folder:
            return  # another folder since
        self._counting = ""
        page.show_counts(counts)
        if not self._language_chosen and any(counts.values()):
            best = max(registry.names(), key=lambda language: counts[language])  # ties: the first language
            page.language_combo.setCurrentIndex(page.language_combo.findData(best))
        if self._find_after_count:
            self._find_after_count = False
            self.find_candidates()

    def find_candidates(self) -> Job | None:
        page = self.repository_page
        folder, out = page.folder_edit.text().strip(), page.out_edit.text().strip()
        if not folder:
            return self._page_error("Choose the repository's folder first")
        if not out:
            return self._page_error("Choose the output dataset folder")
        if self._counting == folder and not self._language_chosen:  # the language follows the count
            self._find_after_count = True
            self._say("Counting source files…")
            return None
        try:
            options = page.options()
            self.repository_page.endpoint()  # a half-filled endpoint is said now, not after the candidates are found
        except TraceEvalError as error:
            return self._page_error(str(error))
        page.show_error("")
        job = FindCandidatesJob(folder, out, options)
        return self._start(job, f"Finding {registry.title(options.language)} candidates in "
                                f"{Path(folder).name}…", self._on_find_job_finished, self._page_error)

    def _page_error(self, message: str) -> None:
        self.repository_page.show_error(message)
        self._say(message, RED)

    def _on_find_job_finished(self, found: FoundCandidates) -> None:
        job = self.job
        self.found = found
        self.out = job.out if isinstance(job, FindCandidatesJob) else Path(self.repository_page.out_edit.text())
        self.marks = dict(found.decided)
        self.drafts.clear()
        self.candidate = None
        self._remember(OUT_PARENT_SETTING, str(self.out.expanduser().resolve().parent))
        self._remember(REPO_SETTING, str(Path(found.repo.path).parent))
        self.candidates_page.show_candidates(found.repo, found.language, found.candidates, found.problems, self.marks)
        self._on_candidates_row_changed()
        self._say(f"{len(found.candidates):,} candidates, {len(found.problems):,} that cannot stand alone "
                  f"({found.seconds:.1f} s)")
        self.go_to(CANDIDATES)

    # -- 2. candidates ---------------------------------------------------------------------
    def _on_candidates_row_changed(self, *_args) -> None:
        candidate = self.candidates_page.selected()
        self.candidates_page.show_details(candidate, self.marks.get(candidate.name) if candidate else None)
        self._update_buttons()

    def _on_candidates_double_clicked(self, _index: QModelIndex) -> None:
        self.go_next()

    def select_candidate(self, name: str) -> None:
        self.candidates_page.select(name)

    def write_harness(self) -> bool:
        """Go to the harness page for the selected candidate (its files are read here: at most
        `max_files` small files, so this does not need a job)."""
        candidate = self.candidates_page.selected()
        if candidate is None or self.found is None:
            return False
        if candidate != self.candidate:
            try:
                self._load_candidate(candidate)
            except (OSError, UnicodeDecodeError, TraceEvalError) as error:
                self._say(f"{candidate.name}: cannot read its files: {error}", RED)
                return False
        self.go_to(HARNESS)
        return True

    def _load_candidate(self, candidate: Candidate) -> None:
        self._keep_draft()
        language = self.found.language
        files = program_texts(Path(self.found.repo.path), candidate)
        entry = harness_path(language, candidate.file, files)
        messages, problem = None, ""
        try:
            messages = harness_messages(HarnessTemplate.load(), self.repository_page.options(), candidate, files,
                                        entry)
        except TraceEvalError as error:  # a bad template: said on the Prompt tab and when asking
            problem = str(error)
        self.candidate, self.files, self.entry_file, self.messages = candidate, files, entry, messages
        self.prompt_problem = problem
        self.model_harness = None
        self.traced = None
        self.trace_page.clear("Not traced yet.")
        self.harness_page.show_candidate(candidate, language, entry, files, messages, problem)
        self.harness_page.editor.setPlainText(self.drafts.get(candidate.name, ""))
        self.harness_page.editor.relex()
        endpoint = self._endpoint_or_none()
        if problem:
            self.harness_page.say(f"The prompt template cannot be used: {problem}", RED)
        elif endpoint is None:
            self.harness_page.say("No endpoint on the Repository page: write the harness by hand (the Prompt and "
                                  "Program Files tabs show what a model would see), then Trace (F5).")
        else:
            self.harness_page.say(f"Ask Model sends the Prompt tab to {endpoint.model} at {endpoint.base_url}; or "
                                  "write the harness yourself. Then Trace (F5).")

    def _keep_draft(self) -> None:
        if self.candidate is not None:
            self.drafts[self.candidate.name] = self.harness_page.editor.toPlainText()

    def next_candidate(self) -> Candidate | None:
        """Select the next candidate nobody has decided yet (after the current one, wrapping) on the
        candidates page; None when every candidate is decided."""
        rows = self.candidates_page.model.rows
        names = [row.payload.name for row in rows]
        start = names.index(self.candidate.name) + 1 if self.candidate and self.candidate.name in names else 0
        for offset in range(len(names)):
            name = names[(start + offset) % len(names)]
            if name not in self.marks:
                self.candidates_page.select(name)
                self.go_to(CANDIDATES)
                return rows[(start + offset) % len(names)].payload
        self.go_to(CANDIDATES)
        self._say("Every candidate has been accepted or rejected", GREEN)
        return None

    # -- 3. the harness --------------------------------------------------------------------
    def _endpoint_or_none(self) -> RunSettings | None:
        try:
            return self.repository_page.endpoint()
        except TraceEvalError:
            return None

    def ask_model(self) -> Job | None:
        page = self.harness_page
        if self.candidate is None or self.busy:
            return None
        if self.messages is None:
            page.say(f"The prompt cannot be made: {self.prompt_problem}", RED)
            return None
        try:
            settings = self.repository_page.endpoint()
            if settings is None:
                page.say("No endpoint: fill in the base URL and model on the Repository page, or write the "
                         "harness by hand", RED)
                return None
            api_key = resolve_api_key(settings)
        except TraceEvalError as error:
            page.say(str(error), RED)
            return None
        page.say(f"Asking {settings.model}…")
        job = AskHarnessJob(settings, self.messages, self.entry_file, self.found.language, api_key=api_key,
                            label=f"{self.found.repo.name}: {self.candidate.name}")
        return self._start(job, f"Asking {settings.model} for a harness for {self.candidate.name}…",
                           lambda asked: self._on_ask_job_finished(settings, asked),
                           lambda message: page.say(message, RED),
                           lambda: page.say("Cancelled: the editor keeps its text"))

    def _on_ask_job_finished(self, settings: RunSettings, asked: AskedHarness) -> None:
        page = self.harness_page
        if asked.harness is None:
            page.say(f"{settings.model} wrote no harness: {asked.why}", RED)
            return
        remember_endpoint(settings)
        self.model_harness = asked.harness
        page.editor.replace_text(asked.harness.text)
        page.tabs.setCurrentIndex(0)
        page.editor.setFocus()
        tokens = ""
        if asked.harness.tokens_in is not None or asked.harness.tokens_out is not None:
            tokens = f" · {asked.harness.tokens_in or 0:,} tokens in, {asked.harness.tokens_out or 0:,} out"
        lines = asked.harness.text.count("\n") + 1
        page.say(f"{settings.model} wrote {lines} lines in {asked.seconds:.1f} s{tokens}. Edit it as you like, "
                 "then Trace (F5).", GREEN)
        self._say("")

    def current_harness(self) -> Harness | None:
        text = self.harness_page.editor.toPlainText()
        if not text.strip():
            return None
        text = text if text.endswith("\n") else text + "\n"
        asked = self.model_harness
        if asked is None:
            return Harness(self.entry_file, text)
        model = asked.model if text == asked.text else f"{asked.model} (edited by hand)"
        return Harness(self.entry_file, text, model, asked.tokens_in, asked.tokens_out)

    # -- 4. the traced graph ---------------------------------------------------------------
    def _on_f5(self) -> None:
        if self.page in (HARNESS, TRACE):
            self.trace()

    def trace(self) -> Job | None:
        if self.busy or self.candidate is None:
            return None
        harness = self.current_harness()
        if harness is None:
            self.harness_page.say("The harness is empty: ask the model or write it first", RED)
            return None
        try:
            options = self.repository_page.options()
        except TraceEvalError as error:
            self.harness_page.say(str(error), RED)
            return None
        self._keep_draft()
        self.traced = None
        self.trace_page.clear(f"Tracing {html.escape(self.candidate.name)}: {options.runs} runs, at most "
                              f"{options.timeout_s:g} s each…")
        self.trace_page.set_banner(AMBER, self.trace_page.verdict_label.text())
        self.go_to(TRACE)
        job = TraceHarnessJob(self.candidate, self.files, harness, options, self.trace_runs)
        job.signals.progressed.connect(self._on_trace_job_progressed)
        return self._start(job, f"Tracing {self.candidate.name}…", self._on_trace_job_finished,
                           lambda message: self.trace_page.set_banner(RED, f"<b>The trace failed</b>: "
                                                                           f"{html.escape(message)}"),
                           lambda: self.trace_page.set_banner("", "Trace cancelled. Trace Again (F5) to run it."))

    def _on_trace_job_progressed(self, done: int, total: int, message: str) -> None:
        if self.sender() is getattr(self.job, "signals", None) and self.traced is None:
            self.trace_page.set_banner(AMBER, f"Tracing {html.escape(self.candidate.name)}: {html.escape(message)}…")

    def _on_trace_job_finished(self, traced: TracedHarness) -> None:
        self.traced = traced
        self.trace_page.show_result(traced.attempt, traced.runs, self.entry_file, traced.seconds)
        verdict = "accepted" if traced.attempt.accepted else f"rejected ({reason_words(traced.attempt.reason)})"
        self._say(f"{self.candidate.name}: {verdict}", GREEN if traced.attempt.accepted else RED)

    # -- 5. the decision -------------------------------------------------------------------
    def accept_harness(self) -> Job | None:
        if self.busy or self.traced is None or not self.traced.attempt.accepted:
            return None
        return self._record(self.traced.attempt)

    def reject_harness(self) -> Job | None:
        if self.busy or self.candidate is None:
            return None
        harness = self.current_harness()
        reason = " ".join(self.trace_page.reason_edit.text().split())
        traced = self.traced.attempt if self.traced is not None else None
        same = traced is not None and traced.harness is not None and harness is not None and \
            traced.harness.text == harness.text
        attempt = Attempt(self.candidate.name, self.candidate.original_file, BY_A_PERSON, reason, harness=harness,
                          runs=traced.runs if same else 0, statuses=traced.statuses if same else (),
                          internal_edges=traced.internal_edges if same else 0, target_kind=self.candidate.kind)
        return self._record(attempt)

    def _record(self, attempt: Attempt) -> Job:
        found = self.found
        job = RecordAttemptJob(self.out, found.language, found.repo, attempt, found.licence_text)
        return self._start(job, f"Writing {attempt.target} to {self.out.name}…", self._on_record_job_finished,
                           lambda message: self._say(f"Not recorded: {message}", RED))

    def _on_record_job_finished(self, recorded: RecordedAttempt) -> None:
        attempt = recorded.attempt
        self.recorded = recorded
        self.marks[attempt.target] = attempt
        self.candidates_page.set_mark(attempt.target, attempt)
        self.trace_page.reason_edit.clear()
        self.drafts[attempt.target] = self.harness_page.editor.toPlainText()
        if attempt.accepted:
            self.recorded_page.show_recorded(recorded.program_id, attempt.target, recorded.out, self.found.language,
                                             recorded.summary)
            self.go_to(RECORDED)
            self._say(f"{attempt.target}: accepted as {recorded.program_id}" if recorded.program_id else
                      f"{attempt.target}: recorded", GREEN)
            return
        csv = recorded.out / "build" / f"rejections-{self.found.language}.csv"
        why = f": {attempt.detail}" if attempt.detail else ""
        self.next_candidate()
        self._on_candidates_row_changed()
        self._say(f"{attempt.target}: rejected{why} (recorded in {csv})", AMBER)

    def open_in_workbench(self) -> None:
        """Open the output dataset in the workbench, selecting the program just accepted."""
        if self.workbench is None or self.recorded is None:
            return
        self._select_after_open = self.recorded.program_id or ""
        self.workbench.open_dataset(self.recorded.out)
        self.workbench.raise_()
        self.workbench.activateWindow()

    def _on_workbench_dataset_opened(self) -> None:
        program_id, self._select_after_open = self._select_after_open, ""
        if not program_id or self.workbench is None:
            return
        key = self.workbench.state.resolve_instance(program_id)
        if key:
            self.workbench.browser.select_key(key)

    # -- jobs ------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.job is not None

    def _start(self, job: Job, message: str, on_finished: Callable, on_failed: Callable[[str], None] | None = None,
               on_cancelled: Callable[[], None] | None = None) -> Job:
        """Run `job` as the one the wizard waits for; results of a job cancelled or replaced are dropped."""
        def ended() -> bool:
            if self.job is not job:
                return False
            self.job = None
            self._show_busy(False)
            return True

        def finished(result) -> None:
            if ended():
                on_finished(result)
                self._update_buttons()

        def failed(text: str) -> None:
            if ended():
                self._say(text, RED)
                if on_failed is not None:
                    on_failed(text)
                self._update_buttons()

        def cancelled() -> None:
            if ended():
                self._say("Cancelled")
                if on_cancelled is not None:
                    on_cancelled()
                self._update_buttons()

        job.signals.finished.connect(finished)
        job.signals.failed.connect(failed)
        job.signals.cancelled.connect(cancelled)
        self.job, self._on_job_cancelled = job, cancelled
        self._say(message)
        self._show_busy(True)
        self.jobs.start(job)
        return job

    def cancel(self) -> None:
        """Stop waiting for the running job (it is told to stop; a trace run ends by its time limit)."""
        job = self.job
        if job is None:
            return
        job.cancel()
        self._on_job_cancelled()  # the wizard is free at once; the job's own end is dropped

    def _show_busy(self, busy: bool) -> None:
        self.progress_bar.setRange(0, 0)
        self.progress_bar.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self._update_buttons()

    def _say(self, message: str, colour: str = "") -> None:
        self.status_label.setStyleSheet(f"color: {colour};" if colour else "")
        self.status_label.setText(message)
        self.status_label.setToolTip(message if len(message) > 80 else "")

    # -- settings and closing --------------------------------------------------------------
    def _setting(self, key: str) -> str:
        value = self.settings.value(key) if self.settings is not None else None
        return value if isinstance(value, str) else ""

    def _remember(self, key: str, value: str) -> None:
        if self.settings is not None:
            self.settings.setValue(key, value)

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Escape and self.busy:
            self.cancel()  # Esc stops the running job first; pressed again, it closes the wizard
            return
        super().keyPressEvent(event)

    def reject(self) -> None:
        self.cancel()
        super().reject()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.cancel()
        self._keep_draft()
        super().closeEvent(event)
