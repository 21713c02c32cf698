"""The edge table sorts by a header click, and a newly shown program's edges come sorted the same way."""
from __future__ import annotations

from PySide6.QtCore import QPoint, Qt

from traceeval_gui.item_models.edge_table import CALLEE_COLUMN, CALLER_COLUMN


def _click_header(qtbot, table, column: int) -> None:
    header = table.horizontalHeader()
    x = header.sectionViewportPosition(column) + header.sectionSize(column) // 2
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, header.height() // 2))


def test_sorting_by_a_column_holds_for_the_next_program(window, state, qtbot):
    window.show_tab("edges")
    panel = window.edge_panel
    keys = [row.key for row in state.opened.rows]
    window.browser.select_key(keys[0])
    _click_header(qtbot, panel.table, CALLER_COLUMN)
    for key in keys[:4]:
        window.browser.select_key(key)
        callers = [edge.caller for edge in panel.edges()]
        assert len(callers) == panel.model.rowCount() > 1
        assert callers == sorted(callers) or callers == sorted(callers, reverse=True)
    _click_header(qtbot, panel.table, CALLEE_COLUMN)
    callees = [edge.callee for edge in panel.edges()]
    assert callees == sorted(callees) or callees == sorted(callees, reverse=True)
