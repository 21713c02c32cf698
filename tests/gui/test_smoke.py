"""Every view renders to an image; the window opens, fails and renders as a user would see it."""
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from traceeval_gui.state.jobs import Job, OpenDatasetJob

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["browser", "source_view", "edge_panel", "metrics_panel", "window"])
def test_each_view_renders(window, state, name):
    state.select_model("illustrative-weak")
    window.browser.select_key("javascript/eventide_0001")
    widget = window if name == "window" else getattr(window, name)
    if name == "metrics_panel":
        window.bottom_tabs.setCurrentWidget(widget)
    image = widget.grab().toImage()
    assert not image.isNull() and image.width() > 100 and image.height() > 100


def test_a_missing_dataset_is_reported_not_raised(qtbot, state, tmp_path):
    from traceeval_gui.workbench.main_window import MainWindow

    window = MainWindow(state, settings=None, interactive=False)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.dataset_failed, timeout=10_000) as blocker:
        window.open_dataset(tmp_path / "nowhere")
    assert "no such dataset folder" in blocker.args[0]
    assert state.workspace is None
    assert "Could not open" in window.statusBar().currentMessage()


def test_jobs_report_progress_and_results_on_the_gui_thread(qtbot, state):
    class CountingJob(Job):
        def work(self, progress):
            for done in range(1, 4):
                progress(done, 3, f"step {done}")
            return "done"

    job = CountingJob()
    seen = []
    job.signals.progressed.connect(lambda done, total, message: seen.append((done, total, message)))
    with qtbot.waitSignal(job.signals.finished, timeout=5_000) as blocker:
        state.jobs.start(job)
    assert blocker.args == ["done"]
    qtbot.waitUntil(lambda: len(seen) == 3)
    assert seen[-1] == (3, 3, "step 3")
    qtbot.waitUntil(lambda: not state.jobs.busy)


def test_a_cancelled_job_says_so(qtbot, state, tmp_path):
    job = OpenDatasetJob(tmp_path)
    job.cancel()
    with qtbot.waitSignal(job.signals.cancelled, timeout=5_000):
        state.jobs.start(job)


def test_a_failing_job_gives_a_one_line_message(qtbot, state):
    class BrokenJob(Job):
        title = "breaking"

        def work(self, progress):
            raise ValueError("bad value")

    job = BrokenJob()
    with qtbot.waitSignal(job.signals.failed, timeout=5_000) as blocker:
        state.jobs.start(job)
    assert blocker.args == ["breaking failed: ValueError: bad value"]


def _run_app(*args, tmp_path):
    env = {**__import__("os").environ, "TRACEEVAL_WORKSPACE_DIR": str(tmp_path / "workspaces")}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    env.pop("QT_QPA_PLATFORM", None)  # the app must choose offscreen itself
    return subprocess.run([sys.executable, "-m", "traceeval_gui.app", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_screenshot_mode_writes_a_png_of_the_window(tmp_path):
    out = tmp_path / "shot.png"
    result = _run_app("--screenshot", str(out), "--instance", "calcpad_0001", "--model", "illustrative-weak",
                      tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"wrote {out}: TraceEval Studio — demo, 15 programs\n"
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1400, 900)


def test_screenshot_mode_draws_an_audit_window_at_the_screenshot_size(tmp_path):
    workspace = tmp_path / "audit.sqlite"
    made = subprocess.run([sys.executable, "-m", "traceeval_gui.cli.main", "audit", "new", "spot",
                           "--population", "truth",
                           "--size", "10", "--seed", "2", "--workspace", str(workspace)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert made.returncode == 0, made.stderr
    out = tmp_path / "audit.png"
    result = _run_app("--workspace", str(workspace), "--audit", "spot", "--annotator", "ann", "--screenshot", str(out),
                      tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1400, 900)  # not the offscreen screen's 800x800 it would fit


@pytest.mark.parametrize("args, message", [
    (["--instance", "no_such_0001"], "no program 'no_such_0001'"),
    (["--model", "gpt-nothing"], "no model named 'gpt-nothing'"),
    (["/no/such/dataset"], "no such dataset folder"),
])
def test_screenshot_mode_reports_bad_input_with_exit_2(tmp_path, args, message):
    result = _run_app("--screenshot", str(tmp_path / "shot.png"), *args, tmp_path=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr
    assert result.stderr.strip().count("\n") == 0, result.stderr  # one line
    assert not (tmp_path / "shot.png").exists()
