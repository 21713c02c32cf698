"""File ▸ Build Instances from Repository: the wizard driven like a person would, with real parts only:
a real test repository (tests/build_repos/python/geomkit, copied so its provenance is its own), the
real OpenAI-compatible test server answering harness prompts (tests/harness_server.py), the real
Python tracer and the real output writer."""
from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from core.dataset.validation import validate_dataset
from tests.gui.conftest import OPEN_TIMEOUT_MS
from tests.harness_server import HARNESSES, harness_server, repo
from tests.llm_server import status

TRACE_TIMEOUT_MS = 90_000
JOB_TIMEOUT_MS = 30_000
CRASHING_HARNESS = 'from geomkit.shapes import Circle\n\nCircle(1.0)\nraise RuntimeError("boom")\n'


@pytest.fixture(autouse=True)
def _private_folders(tmp_path, monkeypatch):
    monkeypatch.setenv("TRACEEVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TRACEEVAL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("TRACEEVAL_WORKSPACE_DIR", str(tmp_path / "workspaces"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # the default output (~/traceeval-builds/...) stays here
    for variable in ("TRACEEVAL_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)


@pytest.fixture
def geomkit(tmp_path) -> Path:
    target = tmp_path / "repos" / "geomkit"
    shutil.copytree(repo("python", "geomkit"), target)
    return target


def canned(target: str) -> str:
    return (HARNESSES / "python" / "geomkit" / f"{target}.txt").read_text(encoding="utf-8")


@pytest.fixture
def wizard(qtbot):
    from traceeval_gui.build.build_wizard import BuildWizard

    wizard = BuildWizard()
    qtbot.addWidget(wizard)
    wizard.show()
    yield wizard
    wizard.cancel()
    wizard.jobs.wait(TRACE_TIMEOUT_MS)


# -- driving the wizard ----------------------------------------------------------------------------

def fill_repository_page(wizard, qtbot, folder: Path, out: Path, base_url: str = "") -> None:
    page = wizard.repository_page
    wizard.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is wizard)  # its keys and focus work once it is active
    page.folder_edit.setFocus()
    qtbot.keyClicks(page.folder_edit, str(folder))
    qtbot.keyClick(page.folder_edit, Qt.Key.Key_Tab)  # editing finished: the files are counted
    qtbot.waitUntil(lambda: "source files:" in page.language_hint.text(), timeout=JOB_TIMEOUT_MS)
    assert page.language == "python"  # the language with the most files is chosen
    assert page.out_edit.text().endswith("geomkit")  # the output follows the repository's name
    page.out_edit.setText(str(out))
    page.url_combo.setEditText(base_url)
    page.model_edit.setText("fake-model" if base_url else "")


def find_candidates(wizard, qtbot) -> None:
    from traceeval_gui.build.build_wizard import CANDIDATES

    assert wizard.next_button.text() == "F&ind Candidates"
    wizard.repository_page.out_edit.setFocus()
    qtbot.keyClick(wizard.repository_page.out_edit, Qt.Key.Key_Return)  # Enter = the page's next step
    qtbot.waitUntil(lambda: wizard.page == CANDIDATES, timeout=JOB_TIMEOUT_MS)


def open_candidate(wizard, qtbot, target: str) -> None:
    from traceeval_gui.build.build_wizard import HARNESS

    wizard.select_candidate(target)
    assert wizard.candidates_page.selected().name == target
    assert target in wizard.candidates_page.details.toPlainText()
    qtbot.keyClick(wizard.candidates_page.table, Qt.Key.Key_Return)  # Enter = Write Harness
    qtbot.waitUntil(lambda: wizard.page == HARNESS)
    assert wizard.harness_page.target_label.text().startswith(target)


def trace(wizard, qtbot):
    from traceeval_gui.build.build_wizard import TRACE

    qtbot.keyClick(wizard, Qt.Key.Key_F5)
    assert wizard.page == TRACE and wizard.busy
    assert not wizard.trace_page.accept_button.isEnabled()
    qtbot.waitUntil(lambda: wizard.traced is not None, timeout=TRACE_TIMEOUT_MS)
    return wizard.traced


def rows(model) -> list[tuple[str, ...]]:
    return [row.cells for row in model.rows]


# -- the tests -------------------------------------------------------------------------------------

def test_a_candidate_is_asked_traced_and_accepted_then_a_crashing_one_is_rejected(wizard, geomkit, tmp_path, qtbot):
    from traceeval_gui.build.build_wizard import CANDIDATES, RECORDED

    out = tmp_path / "built"
    with harness_server() as server:
        fill_repository_page(wizard, qtbot, geomkit, out, server.base_url)
        find_candidates(wizard, qtbot)
        page = wizard.candidates_page
        targets = [row.payload.name for row in page.model.rows]
        assert targets[0] == "geomkit.measure.summary" and "geomkit.shapes.Circle" in targets  # as returned
        assert rows(page.problems_model) == [("geomkit.plot.plot_summary", "geomkit/plot.py",
                                              "it needs a third-party package", page.problems_model.rows[0].cells[3])]
        assert "numpy" in page.problems_model.rows[0].cells[3]

        open_candidate(wizard, qtbot, "geomkit.measure.summary")
        harness = wizard.harness_page
        assert "Target: geomkit.measure.summary" in harness.prompt_view.toPlainText()  # the exact prompt
        assert harness.file_list.count() == 4 and harness.editor.toPlainText() == ""
        qtbot.mouseClick(harness.ask_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: harness.editor.toPlainText() != "", timeout=JOB_TIMEOUT_MS)
        assert harness.editor.toPlainText() == canned("geomkit.measure.summary")
        assert "fake-model wrote" in harness.status_label.text() and "tokens in" in harness.status_label.text()
        assert server.requests and "Target: geomkit.measure.summary" in server.requests[-1].body["messages"][1][
            "content"]

        traced = trace(wizard, qtbot)
    assert traced.attempt.accepted, traced.attempt.detail
    trace_page = wizard.trace_page
    assert "Accepted" in trace_page.verdict_label.text()
    assert [cells[1] for cells in rows(trace_page.runs_model)] == ["OK", "OK", "OK"]
    edges = rows(trace_page.edges_model)
    internal = [cells for cells in edges if cells[4] == "internal"]
    assert len(internal) == traced.attempt.internal_edges >= 3
    assert any(cells[4] == "harness" and cells[0] == "main" for cells in edges)  # the harness's own calls
    assert {("geomkit.measure.summary", "geomkit.measure.total_area"),
            ("geomkit.measure.summary", "geomkit.units.format_length")} <= {(c[0], c[1]) for c in internal}
    assert set(wizard.trace_page.graph_view.edges) == {(c[0], c[1]) for c in edges}  # drawn too
    assert "total:" in trace_page.stdout_view.toPlainText()  # what the harness printed
    assert trace_page.accept_button.isEnabled()

    qtbot.mouseClick(trace_page.accept_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: wizard.page == RECORDED, timeout=JOB_TIMEOUT_MS)
    assert wizard.recorded.program_id == "geomkit_0001"
    assert "geomkit_0001 was added" in wizard.recorded_page.headline.text()
    program = out / "benchmark" / "python" / "geomkit_0001"
    assert (program / "callgraph.json").is_file() and (program / "main.py").read_text() == canned(
        "geomkit.measure.summary")
    readme = (program / "README.md").read_text()
    assert "Target: geomkit.measure.summary" in readme and "written by fake-model" in readme
    report = validate_dataset(out)
    assert report.loaded == 1
    assert [p for p in report.problems if p.severity == "error"] == []

    # Next Candidate: back to the list, the accepted one marked, the next undecided one selected
    qtbot.mouseClick(wizard.recorded_page.next_button, Qt.MouseButton.LeftButton)
    assert wizard.page == CANDIDATES
    assert page.model.rows[0].cells[0] == "✓ accepted"
    assert page.selected().name == targets[1]

    open_candidate(wizard, qtbot, "geomkit.shapes.Circle")
    assert wizard.harness_page.editor.toPlainText() == ""
    wizard.harness_page.editor.setFocus()
    for line in CRASHING_HARNESS.splitlines():  # typed, as a person would
        qtbot.keyClicks(wizard.harness_page.editor, line)
        qtbot.keyClick(wizard.harness_page.editor, Qt.Key.Key_Return)
    assert wizard.harness_page.editor.toPlainText() == CRASHING_HARNESS
    traced = trace(wizard, qtbot)
    assert traced.attempt.reason == "crashed"
    assert "Rejected: the harness crashed" in trace_page.verdict_label.text()
    assert "RuntimeError" in trace_page.stderr_view.toPlainText()
    assert "first failing run" in trace_page.output_caption.text()
    assert not trace_page.accept_button.isEnabled() and trace_page.reject_button.isEnabled()
    qtbot.keyClicks(trace_page.reason_edit, "raises on purpose")
    qtbot.mouseClick(trace_page.reject_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: wizard.page == CANDIDATES, timeout=JOB_TIMEOUT_MS)
    circle = next(row for row in page.model.rows if row.payload.name == "geomkit.shapes.Circle")
    assert circle.cells[0] == "✗ by a person"
    assert "rejections-python.csv" in wizard.status_label.text()
    with open(out / "build" / "rejections-python.csv", encoding="utf-8") as handle:
        rejections = list(csv.DictReader(handle))
    assert [(r["target"], r["reason"], r["detail"]) for r in rejections] == [
        ("geomkit.shapes.Circle", "by_a_person", "raises on purpose")]
    assert (out / "benchmark" / "python" / "geomkit_0001").is_dir()  # the accepted program stays


def test_without_an_endpoint_a_harness_written_by_hand_is_accepted(wizard, geomkit, tmp_path, qtbot):
    from traceeval_gui.build.build_wizard import RECORDED

    out = tmp_path / "by-hand"
    fill_repository_page(wizard, qtbot, geomkit, out)
    find_candidates(wizard, qtbot)
    open_candidate(wizard, qtbot, "geomkit.shapes.Shape.describe")
    harness = wizard.harness_page
    assert "No endpoint" in harness.status_label.text()
    qtbot.mouseClick(harness.ask_button, Qt.MouseButton.LeftButton)  # says what is missing, asks nobody
    assert "No endpoint" in harness.status_label.text() and not wizard.busy
    text = canned("geomkit.shapes.Shape.describe")
    QApplication.clipboard().setText(text)
    harness.editor.setFocus()
    qtbot.keyClick(harness.editor, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)  # pasted
    assert harness.editor.toPlainText() == text
    traced = trace(wizard, qtbot)
    assert traced.attempt.accepted, traced.attempt.detail
    assert traced.attempt.harness.model == ""  # written by a person
    wizard.trace_page.accept_button.setFocus()
    qtbot.keyClick(wizard.trace_page.accept_button, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: wizard.page == RECORDED, timeout=JOB_TIMEOUT_MS)
    readme = (out / "benchmark" / "python" / "geomkit_0001" / "README.md").read_text()
    assert "written by hand" in readme
    assert [p for p in validate_dataset(out).problems if p.severity == "error"] == []


def test_errors_are_said_on_the_page_not_raised(wizard, tmp_path, qtbot):
    from traceeval_gui.build.build_wizard import REPOSITORY

    page = wizard.repository_page
    page.folder_edit.setText(str(tmp_path / "nowhere"))
    page.out_edit.setText(str(tmp_path / "out"))
    wizard.go_next()
    qtbot.waitUntil(lambda: not wizard.busy, timeout=JOB_TIMEOUT_MS)
    assert wizard.page == REPOSITORY and "not a folder" in page.error_label.text() and page.error_label.isVisible()

    empty = tmp_path / "empty"
    empty.mkdir()
    page.folder_edit.setText(str(empty))
    wizard.go_next()
    qtbot.waitUntil(lambda: not wizard.busy, timeout=JOB_TIMEOUT_MS)
    assert "no python source files" in page.error_label.text()

    page.url_combo.setEditText("http://localhost:9/v1")  # a URL without a model: said before anything runs
    wizard.go_next()
    assert not wizard.busy and "without a model id" in page.error_label.text()


def test_model_failures_are_one_line_messages_and_keep_the_editor(wizard, geomkit, tmp_path, qtbot):
    special = {"geomkit.measure.summary": status(401), "geomkit.shapes.Shape": "Sorry, ```I cannot``` do that."}
    with harness_server(special) as server:
        fill_repository_page(wizard, qtbot, geomkit, tmp_path / "out", server.base_url)
        find_candidates(wizard, qtbot)
        open_candidate(wizard, qtbot, "geomkit.measure.summary")
        harness = wizard.harness_page
        harness.editor.setPlainText("# my own start\n")
        qtbot.mouseClick(harness.ask_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not wizard.busy, timeout=JOB_TIMEOUT_MS)
        said = harness.status_label.text()
        assert "refused the API key (401)" in said and "\n" not in said and "Traceback" not in said
        assert harness.editor.toPlainText() == "# my own start\n"  # nothing lost

        wizard.go_back()
        open_candidate(wizard, qtbot, "geomkit.shapes.Shape")
        qtbot.mouseClick(harness.ask_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not wizard.busy, timeout=JOB_TIMEOUT_MS)
        assert "wrote no harness: the answer held no code" in harness.status_label.text()
        assert harness.editor.toPlainText() == ""

        wizard.go_back()  # the first candidate's draft was kept
        open_candidate(wizard, qtbot, "geomkit.measure.summary")
        assert harness.editor.toPlainText() == "# my own start\n"


def test_a_hanging_harness_is_cancelled_at_once_and_otherwise_times_out(wizard, geomkit, tmp_path, qtbot):
    from traceeval_gui.build.build_wizard import TRACE

    fill_repository_page(wizard, qtbot, geomkit, tmp_path / "out")
    wizard.repository_page.timeout_spin.setValue(1.5)
    wizard.repository_page.runs_spin.setValue(2)
    find_candidates(wizard, qtbot)
    open_candidate(wizard, qtbot, "geomkit.measure.make_shapes")
    wizard.harness_page.editor.setPlainText("import time\nfrom geomkit.measure import make_shapes\n\n"
                                            "make_shapes([('circle', 1.0)])\ntime.sleep(60)\n")
    qtbot.keyClick(wizard, Qt.Key.Key_F5)
    assert wizard.busy and wizard.cancel_button.isVisible()
    qtbot.keyClick(wizard, Qt.Key.Key_Escape)  # Esc cancels what runs; the wizard stays open
    assert not wizard.busy and wizard.isVisible() and wizard.page == TRACE
    assert "cancelled" in wizard.trace_page.verdict_label.text()
    assert wizard.trace_page.trace_button.isEnabled()

    traced = trace(wizard, qtbot)  # now left to run: each run ends by its time limit
    assert traced.attempt.reason == "timed_out"
    assert "Rejected: the harness timed out" in wizard.trace_page.verdict_label.text()
    assert [cells[1] for cells in rows(wizard.trace_page.runs_model)] == ["Timeout"]  # the first run decides
    assert traced.seconds < 15  # a run of at most 1.5 s (plus start-up), never the harness's 60 s


def test_the_wizard_renders_every_page(wizard, geomkit, tmp_path, qtbot):
    from traceeval_gui.build.build_wizard import RECORDED

    shots = Path(tmp_path / "shots")
    shots.mkdir()

    def shot(name: str) -> None:
        image = wizard.grab().toImage()
        assert not image.isNull() and image.width() > 600
        image.save(str(shots / f"wizard_{name}.png"))

    out = tmp_path / "built"
    with harness_server() as server:
        fill_repository_page(wizard, qtbot, geomkit, out, server.base_url)
        shot("repository")
        find_candidates(wizard, qtbot)
        shot("candidates")
        open_candidate(wizard, qtbot, "geomkit.measure.summary")
        qtbot.mouseClick(wizard.harness_page.ask_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: wizard.harness_page.editor.toPlainText() != "", timeout=JOB_TIMEOUT_MS)
        shot("harness")
        wizard.harness_page.tabs.setCurrentIndex(1)
        shot("prompt")
        wizard.harness_page.tabs.setCurrentIndex(0)
        trace(wizard, qtbot)
    shot("trace")
    wizard.trace_page.result_tabs.setCurrentIndex(1)
    shot("graph")
    qtbot.mouseClick(wizard.trace_page.accept_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: wizard.page == RECORDED, timeout=JOB_TIMEOUT_MS)
    shot("recorded")
    assert len(list(shots.glob("*.png"))) == 7


@pytest.fixture
def bare_window(qtbot, state):
    """The main window with no dataset open yet."""
    from traceeval_gui.workbench.main_window import MainWindow

    window = MainWindow(state, settings=None, interactive=False)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.close()


def test_the_file_menu_opens_the_wizard_once_and_open_in_workbench_selects_the_program(bare_window, state, geomkit,
                                                                                      tmp_path, qtbot):
    from traceeval_gui.build.build_wizard import RECORDED, BuildWizard

    window = bare_window
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    item = next(a for a in menu.actions() if a.text() == "&Build Instances from Repository…")
    assert item.shortcut().toString() == "Ctrl+Shift+B"
    item.trigger()
    wizard = window.findChild(BuildWizard)
    assert wizard is not None and wizard.isVisible() and not wizard.isModal()
    item.trigger()
    assert window.findChildren(BuildWizard) == [wizard]  # one at a time

    out = tmp_path / "built"
    fill_repository_page(wizard, qtbot, geomkit, out)
    find_candidates(wizard, qtbot)
    open_candidate(wizard, qtbot, "geomkit.measure.make_shapes")
    wizard.harness_page.editor.setPlainText(canned("geomkit.measure.make_shapes"))
    traced = trace(wizard, qtbot)
    assert traced.attempt.accepted, traced.attempt.detail
    wizard.accept_harness()
    qtbot.waitUntil(lambda: wizard.page == RECORDED, timeout=JOB_TIMEOUT_MS)
    assert wizard.recorded_page.open_button.isVisible()
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        qtbot.mouseClick(wizard.recorded_page.open_button, Qt.MouseButton.LeftButton)
    assert state.opened.root == out.resolve()
    assert state.instance_key == "python/geomkit_0001"
    wizard.close()
    qtbot.waitUntil(lambda: window.findChild(BuildWizard) is None)


def test_every_step_is_reachable_with_the_keyboard(wizard, qtbot):
    from PySide6.QtWidgets import QLabel

    page = wizard.repository_page
    wizard.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is wizard)
    for letter, widget in ((Qt.Key.Key_O, page.out_edit), (Qt.Key.Key_L, page.language_combo),
                           (Qt.Key.Key_U, page.url_combo), (Qt.Key.Key_K, page.key_env_edit),
                           (Qt.Key.Key_N, page.runs_spin), (Qt.Key.Key_F, page.folder_edit)):
        qtbot.keyClick(QApplication.focusWidget() or wizard, letter, Qt.KeyboardModifier.AltModifier)
        focused = QApplication.focusWidget()
        assert focused is widget or widget.isAncestorOf(focused), letter
    mnemonics = [label.text().split("&")[1][0].lower() for label in page.findChildren(QLabel)
                 if "&" in label.text() and not label.text().startswith("<")]
    mnemonics += [b.text().split("&")[1][0].lower() for b in (page.folder_button, page.out_button, wizard.next_button)]
    assert len(mnemonics) == len(set(mnemonics)), mnemonics  # no letter does two things on the page
