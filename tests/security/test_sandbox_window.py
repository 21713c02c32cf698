"""The window tracing a hostile program (issue #18): F5 runs it in the sandbox, and the Tracer tab
shows what the sandbox was and what the copy refused, while the program saw none of it."""
import os

import pytest

pytest.importorskip("PySide6", exc_type=ImportError)

from PySide6.QtCore import Qt

from core import traces
from tests.builders import write_program
from tests.security.sandbox_attacks import needs_sandbox

pytestmark = needs_sandbox
OPEN_TIMEOUT_MS = 20_000
TRACE_TIMEOUT_MS = 30_000
PEEK = ("import os\n\n\ndef peek():\n    for name in ('environ', 'home'):\n        try:\n"
        "            print(name, open(name).read()[:80])\n        except OSError as error:\n"
        "            print(name, error.strerror)\n\n\npeek()\n")



def test_f5_traces_a_program_whose_links_reach_out_and_the_tab_says_what_was_refused(window, qtbot, tmp_path,
                                                                                      monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", f"sk-canary-{os.getpid()}")
    window, state = window
    root = tmp_path / "dataset"
    folder = write_program(root / "benchmark/python/peek_0001", {"main.py": PEEK},
                           {"main": ["main.peek"], "main.peek": []})
    os.symlink("/proc/self/environ", folder / "environ")
    os.symlink(os.path.expanduser("~"), folder / "home")
    with qtbot.waitSignal(state.dataset_opened, timeout=OPEN_TIMEOUT_MS):
        window.open_dataset(root, workspace=tmp_path / "ws.sqlite")
    window.browser.select_key("python/peek_0001")
    panel = window.tracer_panel
    with qtbot.waitSignal(panel.trace_ended, timeout=TRACE_TIMEOUT_MS):
        qtbot.keyClick(window, Qt.Key.Key_F5)
    run = panel.shown_run
    assert run.status == traces.OK and "sk-canary" not in run.stdout_tail
    assert run.stdout_tail == "environ No such file or directory\nhome No such file or directory\n"
    assert "user namespace" in panel.facts["Sandbox"].text() and "seccomp" in panel.facts["Sandbox"].text()
    warnings = panel.facts["Warnings"].text()
    assert "environ: not copied: a link to /proc/self/environ, outside the program folder" in warnings
    assert "home: not copied: a link to" in warnings
    window.show_tab("tracer")
    window.grab().save(str(tmp_path / "tracer.png"))
