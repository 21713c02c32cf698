"""Model > Runs and Costs after a real model run on the demo (the runner against a chat-completions server on
127.0.0.1 that reports usage): the window lists the ledger `core.llm.ledger` computes, with its totals."""
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from core.dataset.indexing import open_dataset
from core.llm.endpoints import RunSettings
from core.llm.ledger import ledger, totals
from core.llm.prices import Price, PriceTable
from core.llm.repeats import repeat_settings
from core.llm.runner import run_model
from resources import DEMO_DATASET
from tests.gui.conftest import open_window
from tests.gui.menus import menu_action
from tests.llm_server import FakeChatServer, demo_truth_answers, seeded_answers
from traceeval_gui.runs.ledger_window import ROW_ROLE, RunsLedgerWindow

POLL_MS = 20


def _two_runs(path):
    answers = demo_truth_answers(path)
    prices = PriceTable({"fake-model": Price(2.5, 10.0)})
    ws, _ = open_dataset(DEMO_DATASET, path)
    with ws, FakeChatServer(seeded_answers(answers, lambda seed, key, text: text if seed == 1 else "1.")) as server:
        keys = [row.key for row in ws.instance_rows()]
        for settings in repeat_settings(RunSettings(server.base_url, "fake-model", use_cache=False), 2, [1, 2]):
            report = run_model(ws, settings, keys, prices=prices, backoff_base_s=0.01)
            assert report.status == "finished" and not report.failed
        return ledger(ws)


def test_runs_and_costs_lists_the_ledger_of_every_run(qtbot, state, tmp_path):
    path = tmp_path / "demo.sqlite"
    expected = _two_runs(path)
    window = open_window(qtbot, state, path)
    seen: dict = {}

    def inspect() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, RunsLedgerWindow) or dialog.rows is None:
            QTimer.singleShot(POLL_MS, inspect)
            return
        table = dialog.table
        seen["rows"] = [table.item(r, 0).data(ROW_ROLE) for r in range(table.rowCount())]
        seen["cells"] = [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(table.rowCount())]
        seen["summary"] = dialog.summary.text()
        seen["saved"] = dialog.grab().save(str(tmp_path / "runs_and_costs.png"))
        dialog.reject()

    QTimer.singleShot(0, inspect)
    menu_action(window, "Model", "Runs and Costs…").trigger()
    assert seen["rows"] == expected and len(expected) == 6  # 2 runs x 3 languages
    assert {cells[1] for cells in seen["cells"]} == {"fake-model", "fake-model@r1"}
    assert {cells[3] for cells in seen["cells"]} == {"1", "2"}  # each run's seed
    total = totals(expected)
    assert f"{total['tokens_in']:,} tokens in" in seen["summary"] and f"${total['cost_usd']:,.4f}" in seen["summary"]
    assert seen["saved"]
    window.close()
