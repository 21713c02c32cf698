"""Fixtures for the GUI tests: the workbench window over the bundled demo dataset."""
import pytest

from resources import DEMO_DATASET

try:
    import PySide6  # noqa: F401
except ImportError:  # no Qt here, or the headless run (tests/block_qt.py): nothing to test
    collect_ignore_glob = ["test_*.py"]

OPEN_TIMEOUT_MS = 20_000


@pytest.fixture
def state(qtbot):
    from traceeval_gui.state.app_state import AppState

    state = AppState()
    yield state
    state.jobs.wait()
    state.close()


def open_window(qtbot, state, workspace, dataset=DEMO_DATASET, settings=None, size=(1400, 900)):
    """The main window shown with `dataset` open in `workspace` (`size=None`: the size it chooses itself)."""
    from traceeval_gui.workbench.main_window import MainWindow

    window = MainWindow(state, settings=settings, interactive=False)
    qtbot.addWidget(window)
    if size is not None:
        window.resize(*size)
    window.show()
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        window.open_dataset(dataset, workspace=workspace)
    return window


@pytest.fixture
def window(qtbot, state, tmp_path):
    """The main window with the demo dataset open (illustrative-strong is the first model)."""
    window = open_window(qtbot, state, tmp_path / "demo.sqlite")
    yield window
    window.close()


@pytest.fixture
def workspace(state):
    """The GUI thread's workspace (for computing expected values with core functions)."""
    return state.workspace
