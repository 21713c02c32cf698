"""One workspace, the window and CLI processes (issue #18): after the window's file dialogs have listed the
workspace folder, `traceeval` commands on the same workspace leave the window's data intact and the window
keeps working.

SQLite drops all of a process's POSIX locks on a file when the process closes any descriptor of it. A file
dialog that reads the workspace to pick its icon did that, and the next command to close its connection
deleted the WAL under the window's live connection ("database disk image is malformed")."""
import os
import re
from pathlib import Path

import pytest

pytest.importorskip("PySide6", exc_type=ImportError)  # also skipped in the run with Qt blocked

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QFileDialog, QFileSystemModel, QMessageBox

from resources import DEMO_DATASET
from tests.llm_server import FakeChatServer, demo_truth_answers, hang, truth_answers
from tests.security.workspace_processes import cli, finish, released_results
from traceeval_gui.widgets.file_dialogs import (
    existing_directory,
    open_file_name,
    open_file_names,
    save_file_name,
)

OPEN_TIMEOUT_MS = 20_000
LISTED_TIMEOUT_S = 20


@pytest.fixture
def results(tmp_path, capfd):
    """The truth answers and released results files to import (made in a workspace of their own)."""
    answers = demo_truth_answers(tmp_path / "seed.sqlite")
    return answers, released_results(capfd, tmp_path / "seed.sqlite", answers, tmp_path / "results")


@pytest.fixture
def window(qtbot, tmp_path):
    """The workbench over the demo dataset, its workspace alone in a folder of its own."""
    from traceeval_gui.state.app_state import AppState
    from traceeval_gui.workbench.main_window import MainWindow

    state = AppState()
    window = MainWindow(state, settings=None, interactive=False)
    qtbot.addWidget(window)
    window.show()
    (tmp_path / "workspaces").mkdir(exist_ok=True)
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        window.open_dataset(DEMO_DATASET, workspace=tmp_path / "workspaces" / "demo.sqlite")
    yield window
    window.close()
    state.jobs.wait()
    state.close()


def list_then_cancel(qtbot, open_dialog) -> list[str]:
    """Run `open_dialog`, which blocks in a modal file dialog; once the dialog has listed its folder and shown
    every entry's name, type and icon, cancel it. Returns the names it listed."""
    listed: list[str] = []

    def look() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QFileDialog):
            QTimer.singleShot(50, look)
            return
        try:
            model = dialog.findChild(QFileSystemModel)
            folder = model.index(dialog.directory().absolutePath())
            qtbot.waitUntil(lambda: not model.canFetchMore(folder), timeout=LISTED_TIMEOUT_S * 1000)
            qtbot.wait(1000)  # the file information thread fetches every entry's details
            for row in range(model.rowCount(folder)):
                listed.append(model.index(row, 0, folder).data())
                for column in range(model.columnCount(folder)):
                    index = model.index(row, column, folder)
                    index.data(Qt.ItemDataRole.DisplayRole), index.data(Qt.ItemDataRole.DecorationRole)
        finally:
            dialog.reject()

    QTimer.singleShot(0, look)
    open_dialog()
    return listed


def posix_locks(path: Path, pid: int) -> list[str]:
    """The POSIX locks process `pid` holds on `path` (from /proc/locks)."""
    inode = os.stat(path).st_ino
    lines = Path("/proc/locks").read_text().splitlines()
    return [line for line in lines if re.search(rf"\sPOSIX\s.*\s{pid}\s+\S+:{inode}\s", line)]


def test_after_every_file_dialog_lists_the_workspace_folder_cli_commands_leave_the_window_working(
        qtbot, window, results, tmp_path, capfd):
    answers, results_folder = results
    state = window.state
    path = state.opened.workspace_path
    folder = str(path.parent)
    assert posix_locks(path, os.getpid()), "the window's connection holds a lock on the workspace"
    filters = "Workspaces (*.sqlite *.db);;All files (*)"
    dialogs = {  # the merge action opens in the workspace folder; every other dialog is one of the helpers
        "merge": window.audits.ask_merge,
        "open file": lambda: open_file_name(window, "Open", folder, filters),
        "open files": lambda: open_file_names(window, "Open", folder, "All files (*)"),
        "save file": lambda: save_file_name(window, "Save", str(path.parent / "new.sqlite"), filters),
        "folder": lambda: existing_directory(window, "Folder", folder),
    }
    for name, open_dialog in dialogs.items():
        listed = list_then_cancel(qtbot, open_dialog)
        assert name == "folder" or path.name in listed, (name, listed)
        assert posix_locks(path, os.getpid()), f"after the {name} dialog the window lost its workspace locks"
    wal = Path(f"{path}-wal")
    wal_inode = wal.stat().st_ino

    with FakeChatServer(truth_answers(answers)) as server:
        commands = {
            "import-results": ("import-results", DEMO_DATASET, results_folder, "--model", "cli-import",
                               "--workspace", path),
            "predict": ("predict", "--workspace", path, "--model", "fake-model", "--name", "cli-predict",
                        "--base-url", server.base_url, "--split", "all", "--no-results-files"),
            "models": ("models", "--workspace", path),
            "score": ("score", "--workspace", path, "--split", "all"),
        }
        for name, argv in commands.items():
            code, output = finish(cli(*argv))
            assert code == 0 and "Traceback" not in output, f"{name}:\n{output}"
            assert wal.exists() and wal.stat().st_ino == wal_inode, f"{name} replaced the window's WAL"

    # the window's own connection reads everything, old and new, and the window takes in the new models
    assert {"cli-import", "cli-predict", "illustrative-strong"} <= {m.name for m in state.workspace.models()}
    assert state.workspace.instance_count() == 15
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        window.reopen()
    assert {"cli-import", "cli-predict"} <= {m.name for m in state.opened.models}
    assert "malformed" not in "".join(capfd.readouterr())


def test_the_window_keeps_working_while_cli_commands_write(qtbot, window, results, tmp_path, capfd):
    """A predict run writes answer after answer while the window reads and writes the same workspace."""
    answers, _ = results
    state = window.state
    path = state.opened.workspace_path
    right = truth_answers(answers)
    with FakeChatServer(lambda request, attempt: hang(0.05, right(request, attempt))) as server:
        process = cli("predict", "--workspace", path, "--model", "fake-model", "--name", "while-open",
                      "--base-url", server.base_url, "--split", "all", "--jobs", "2", "--no-results-files")
        seen = []
        while process.poll() is None:  # the user walks the programs, each read from the workspace, and writes
            window.browser.select_relative(1)
            seen.append(len(state.workspace.predicted_keys("while-open")))
            state.workspace.set_setting("window-note", str(seen[-1]))
            assert state.workspace.instance_count() == 15 and state.instance_key
            qtbot.wait(20)
        code, output = finish(process)
    assert len(seen) > 5 and seen != sorted(set(seen))[:1] * len(seen), seen  # it saw the answers arrive
    assert code == 0 and "Traceback" not in output, output
    assert len(state.workspace.predicted_keys("while-open")) == 15
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        window.reopen()
    assert "while-open" in {m.name for m in state.opened.models}
    assert "malformed" not in "".join(capfd.readouterr())


def test_picking_the_open_workspace_as_a_results_file_or_an_export_target_is_refused(qtbot, window, tmp_path):
    """Reading the workspace as a results file (or writing an export over it) would open it outside its
    connection, dropping the window's locks: File > Import Results… and the export dialogs refuse it by name."""
    path = window.state.opened.workspace_path
    warnings: list[str] = []

    def pick(chosen: str) -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QFileDialog):
            QTimer.singleShot(50, lambda: pick(chosen))
            return
        QTimer.singleShot(0, lambda: refuse_warning(100))
        dialog.selectFile(chosen)
        dialog.accept()

    def refuse_warning(tries: int) -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox):
            replace = box.button(QMessageBox.StandardButton.Yes)  # Qt's own "replace it?" for a save comes first
            replace.click() if replace is not None else box.accept()
            if "in use" in box.text():
                warnings.append(box.text())
                return
        if tries:  # else no warning came: the assertions below say so
            QTimer.singleShot(50, lambda: refuse_warning(tries - 1))

    import_action = next(a for a in window.findChildren(QAction) if a.text() == "&Import Results…")
    for chosen in (str(path), f"{path}-wal"):
        QTimer.singleShot(0, lambda chosen=chosen: pick(chosen))
        import_action.trigger()
    QTimer.singleShot(0, lambda: pick(str(path)))
    assert save_file_name(window, "Export", str(path.parent), "All files (*)") == ""
    assert len(warnings) == 3 and all("a database in use (a workspace)" in text for text in warnings), warnings
    assert posix_locks(path, os.getpid()), "the window lost its workspace locks"
    assert {m.name for m in window.state.workspace.models()} >= {"illustrative-strong"}
