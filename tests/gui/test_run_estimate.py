"""Model > Run Model shows what the run would send before it starts: prompts, input and output tokens
and, with prices (remembered per model), the cost; the estimate follows the options, and its counts
are the CLI dry run's."""
import re

import pytest
from PySide6.QtCore import QSettings

from tests.cli_run import run
from tests.gui.conftest import open_window
from tests.gui.dialogs import drive_run_model_dialog, replace_text

ESTIMATE_TIMEOUT_MS = 10_000


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def studio(qtbot, state, settings, tmp_path):
    window = open_window(qtbot, state, tmp_path / "demo.sqlite", settings=settings)
    yield window
    window.close()


def estimate_shown(dialog):
    return f"{dialog.estimate_view.label.text()}\n{dialog.estimate_view.cost_label.text()}"


def wait_for_estimate(qtbot, dialog, needle):
    qtbot.waitUntil(lambda: needle in estimate_shown(dialog), timeout=ESTIMATE_TIMEOUT_MS)
    return estimate_shown(dialog)


def test_the_estimate_follows_the_options_and_matches_the_cli_dry_run(qtbot, studio, settings, tmp_path, capsys):
    seen = {}

    def steps(dialog):
        replace_text(qtbot, dialog.model_edit, "new-model")
        dialog.split_combo.setCurrentIndex(dialog.split_combo.findData("all"))
        seen["all"] = wait_for_estimate(qtbot, dialog, "15 prompts to send")
        replace_text(qtbot, dialog.estimate_view.price_edits["input_per_mtok"], "3")
        replace_text(qtbot, dialog.estimate_view.price_edits["output_per_mtok"], "15")
        seen["priced"] = wait_for_estimate(qtbot, dialog, "Cost: <b>")
        replace_text(qtbot, dialog.limit_spin.lineEdit(), "4")
        seen["limited"] = wait_for_estimate(qtbot, dialog, "4 prompts to send")
        replace_text(qtbot, dialog.model_edit, "illustrative-weak")  # it answered 14 of the 15
        dialog.limit_spin.setValue(0)
        seen["answered"] = wait_for_estimate(qtbot, dialog, "1 prompt to send")

    drive_run_model_dialog(qtbot, studio, steps)
    code, out, _ = run(capsys, "predict", "--workspace", tmp_path / "demo.sqlite", "--model", "new-model",
                       "--base-url", "http://127.0.0.1:9/v1", "--split", "all", "--dry-run")
    assert code == 0
    line = re.search(r"dry run: ([\d,]+) prompt\(s\), ([\d,]+) characters, ≈([\d,]+) input", out)
    prompts, chars, tokens = line.groups()
    assert f"{prompts} prompts to send" in seen["all"]
    assert f"≈{tokens} input tokens ({chars} characters" in seen["all"]
    assert "output tokens" in seen["all"] and "answers stored for other models" in seen["all"]
    assert "Cost: unknown" in seen["all"]
    cost = re.search(r"Cost: <b>≈\$([\d.,]+)</b> \(input \$([\d.,]+) \+ output \$([\d.,]+)\)", seen["priced"])
    assert cost, seen["priced"]
    assert float(cost.group(2)) == pytest.approx(int(tokens.replace(",", "")) * 3 / 1e6, rel=0.01)
    assert "answers stored for illustrative-weak" in seen["answered"]
    # the prices are remembered for that model id, and come back with it
    assert settings.value("prices/new-model/input_per_mtok") == "3"

    def reopened(dialog):
        replace_text(qtbot, dialog.model_edit, "new-model")
        seen["prices"] = [edit.text() for edit in dialog.estimate_view.price_edits.values()]

    drive_run_model_dialog(qtbot, studio, reopened)
    assert seen["prices"] == ["3", "15"]


def test_an_option_that_cannot_be_estimated_says_why(qtbot, studio):
    seen = {}

    def steps(dialog):
        replace_text(qtbot, dialog.model_edit, "")
        seen["text"] = dialog.estimate_view.label.text()

    drive_run_model_dialog(qtbot, studio, steps)
    assert seen["text"].startswith("No estimate: ") and "model id" in seen["text"]
