"""The window opening a dataset with a FIFO named callgraph.json and one named main.py (issue #18): the
other programs are listed, the problems are shown, and a source swapped for a FIFO after opening is
reported in the source view instead of blocking the window."""
import os

import pytest

try:
    import PySide6  # noqa: F401
except ImportError:  # no Qt here, or the headless run (tests/block_qt.py)
    pytest.skip("needs Qt", allow_module_level=True)

from tests.builders import released_dataset

OPEN_TIMEOUT_MS = 20_000



def test_fifos_in_a_dataset_leave_the_window_responsive_and_are_shown(window, qtbot, tmp_path):
    window, state = window
    root = released_dataset(tmp_path / "data", {"python": ["good_0001", "other_0001", "fifotruth_0001",
                                                           "fifomain_0001"]})
    programs = root / "benchmark" / "python"
    for program, name in (("fifotruth_0001", "callgraph.json"), ("fifomain_0001", "main.py")):
        (programs / program / name).unlink()
        os.mkfifo(programs / program / name)

    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        window.open_dataset(root, workspace=tmp_path / "ws.sqlite")

    model = window.browser.model
    assert sorted(model.index(row, 0).data() for row in range(model.rowCount())) == ["good_0001", "other_0001"]
    assert window.problems_label.text() == "2 problems"
    tip = window.problems_label.toolTip()
    assert "benchmark/python/fifotruth_0001/callgraph.json: not a regular file (a FIFO); not read" in tip
    assert "benchmark/python/fifomain_0001/main.py: not a regular file (a FIFO); not read" in tip

    (programs / "other_0001" / "main.py").unlink()  # after opening: the program is listed, its source a FIFO
    os.mkfifo(programs / "other_0001" / "main.py")
    with qtbot.waitSignal(state.instance_selected, timeout=OPEN_TIMEOUT_MS):
        assert window.browser.select_key("python/other_0001")
    tabs = window.source_view.tabs
    shown = [tabs.widget(index).text() for index in range(tabs.count()) if hasattr(tabs.widget(index), "text")]
    assert shown == ["Cannot read main.py: not a regular file (a FIFO); not read"]
