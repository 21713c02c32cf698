"""Fixtures the attack tests share: the demo workspace with one program singled out, and the bare window."""
import pytest

from core.dataset.indexing import open_dataset
from resources import DEMO_DATASET
from tests.llm_server import demo_truth_answers


@pytest.fixture
def demo(tmp_path):
    """The demo workspace, the right answer per prompt hash, one program's key and prompt hash (the one
    a hostile endpoint or answer aims at), and how many programs there are."""
    from core.llm.prompts import build_prompt

    path = tmp_path / "demo.sqlite"
    answers = demo_truth_answers(path)
    ws, _ = open_dataset(DEMO_DATASET, path)
    with ws:
        rows = ws.instance_rows()
        victim = rows[0].key
        victim_hash = build_prompt(ws.instance(victim)).hash
    return path, answers, victim, victim_hash, len(rows)


@pytest.fixture
def window(qtbot):
    """The main window, no dataset open yet, and its state (Qt is imported here: the modules that use
    this skip themselves in the run with Qt blocked)."""
    from traceeval_gui.state.app_state import AppState
    from traceeval_gui.workbench.main_window import MainWindow

    state = AppState()
    window = MainWindow(state, settings=None, interactive=False)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    yield window, state
    window.close()
    state.jobs.wait()
    state.close()
