"""The Compare tab's paired statistics: a person picks two models and a selection, and the tab shows what
`traceeval compare A B --stats --format json` prints for the same workspace; the Export button writes it."""
import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from core.languages import registry
from core.scoring.paired import MACRO
from tests.cli_run import run
from traceeval_gui.item_models.paired_table import PAIRED_ROLE

STRONG, WEAK = "illustrative-strong", "illustrative-weak"
TIMEOUT_MS = 20_000


def _settled(qtbot, panel, a, b):
    qtbot.waitUntil(lambda: not panel.stats_pending() and panel.stats is not None
                    and (panel.stats.model_a, panel.stats.model_b) == (a, b), timeout=TIMEOUT_MS)
    return panel.stats


def _choose(combo, data):
    index = combo.findData(data)
    assert index >= 0, data
    combo.setCurrentIndex(index)


def _cli(capsys, tmp_path, *options):
    code, out, _ = run(capsys, "compare", WEAK, STRONG, "--stats", "--format", "json", "--workspace",
                       tmp_path / "demo.sqlite", *options)
    assert code == 0
    return json.loads(out)


def _shown(panel):
    model = panel.stats_model
    return [[model.index(row, column).data() for column in range(model.columnCount())]
            for row in range(model.rowCount())]


def _assert_same(panel, doc):
    shown = _shown(panel)
    assert [panel.stats_model.index(r, 0).data(PAIRED_ROLE).language for r in range(len(shown))] == \
        [row["language"] for row in doc["rows"]]
    for cells, row in zip(shown, doc["rows"]):
        core_row = panel.stats_model.index(shown.index(cells), 0).data(PAIRED_ROLE)
        assert (core_row.difference.observed, [core_row.difference.low, core_row.difference.high]) == \
            (row["delta_f1"], row["ci"])
        assert cells[0] == ("Average" if row["language"] == MACRO else registry.title(row["language"]))
        assert cells[1] == f"{row['programs']:,}"
        assert cells[4] == f"{row['delta_f1'] * 100:+.1f}"
        assert cells[5] == f"[{row['ci'][0] * 100:+.1f}, {row['ci'][1] * 100:+.1f}]"
        assert cells[6] == f"{row['wins_a']}/{row['losses_a']}/{row['ties']}"
        assert float(cells[7]) == pytest.approx(row["sign_p"], abs=5e-5)


def test_the_tab_shows_what_the_cli_prints(window, qtbot, tmp_path, capsys):
    window.show_tab("compare")
    panel = window.compare_panel
    _choose(window.model_combo, WEAK)  # model A: the toolbar's
    _choose(panel.model_b_combo, STRONG)  # model B: the tab's
    _settled(qtbot, panel, WEAK, STRONG)
    doc = _cli(capsys, tmp_path)
    _assert_same(panel, doc)
    assert doc["rows"][-1]["delta_f1"] < 0  # F1(A) - F1(B), the weak model is A here
    assert "ledgerlite_0002" in panel.stats_note.text()  # left out: the weak model never answered it

    _choose(panel.language_combo, "java")
    _settled(qtbot, panel, WEAK, STRONG)
    qtbot.waitUntil(lambda: [r.language for r in panel.stats.rows] == ["java", MACRO], timeout=TIMEOUT_MS)
    _assert_same(panel, _cli(capsys, tmp_path, "--languages", "java"))

    _choose(panel.split_combo, "test")
    qtbot.waitUntil(lambda: not panel.stats_pending() and panel.stats is not None
                    and panel.stats.selection.split == "test", timeout=TIMEOUT_MS)
    _assert_same(panel, _cli(capsys, tmp_path, "--languages", "java", "--split", "test"))


def test_swapping_the_models_mirrors_the_statistics(window, qtbot):
    window.show_tab("compare")
    panel = window.compare_panel
    _choose(window.model_combo, STRONG)
    _choose(panel.model_b_combo, WEAK)
    stats = _settled(qtbot, panel, STRONG, WEAK)
    assert stats.row(MACRO).difference.observed > 0
    assert _shown(panel)[-1][4].startswith("+")


def test_the_paired_page_reads_as_the_list_beside_it(window, qtbot):
    # the strong model as A: the list says "A better on 14, B better on 0", so ΔF1 is positive and A wins 14 of 14
    window.show_tab("compare")
    panel = window.compare_panel
    _choose(window.model_combo, STRONG)
    _choose(panel.model_b_combo, WEAK)
    _settled(qtbot, panel, STRONG, WEAK)
    assert "A better on 14" in panel.summary.text() and "B better on 0" in panel.summary.text()
    macro = _shown(panel)[-1]
    assert macro[4].startswith("+") and macro[6] == "14/0/0"
    titles = [panel.stats_model.headerData(c, Qt.Orientation.Horizontal) for c in range(8)]
    tips = [panel.stats_model.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
            for c in range(8)]
    assert titles[4] == "ΔF1" and "F1(A) − F1(B)" in tips[4] and "positive when A is better" in tips[4]
    assert tips[6].startswith("A's wins")
    tip = panel.stats_model.index(len(_shown(panel)) - 1, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert "A better on 14, B better on 0, tied on 0" in tip


def test_the_export_button_writes_the_statistics(window, qtbot, tmp_path, capsys):
    from tests.gui.test_menu_actions import choose_file, on_next_dialog

    window.show_tab("compare")
    panel = window.compare_panel
    _choose(window.model_combo, WEAK)
    _choose(panel.model_b_combo, STRONG)
    _settled(qtbot, panel, WEAK, STRONG)
    assert panel.stats_export.isEnabled()
    out = tmp_path / "paired.json"
    on_next_dialog(qtbot, choose_file(out), QFileDialog)
    json_action = next(a for a in panel.stats_export.menu().actions() if "JSON" in a.text())
    json_action.trigger()
    qtbot.waitUntil(lambda: out.exists() and out.stat().st_size > 0, timeout=TIMEOUT_MS)
    written = json.loads(out.read_text())
    assert written["schema"] == "traceeval.paired-stats"
    assert written["rows"] == _cli(capsys, tmp_path)["rows"]
    # the same from File > Export
    md = tmp_path / "paired.md"
    on_next_dialog(qtbot, choose_file(md), QFileDialog)
    _submenu_action(window, "File", "Export", "Paired Statistics (Compare)", "As Markdown…").trigger()
    qtbot.waitUntil(lambda: md.exists(), timeout=TIMEOUT_MS)
    assert "| Average (macro) | 14 |" in md.read_text()


def _submenu_action(window, *titles):
    """The action at the end of a menu path, as a person opens one menu inside the other."""
    actions = window.menuBar().actions()
    for title in titles:
        action = next(a for a in actions if a.text().replace("&", "") == title)
        actions = action.menu().actions() if action.menu() else []
    return action
