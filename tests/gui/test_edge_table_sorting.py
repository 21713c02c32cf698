"""The edge table sorts by a header click, and a newly shown program's edges come sorted the same way."""
from __future__ import annotations

from PySide6.QtCore import QPoint, Qt

from traceeval_gui.item_models.edge_table import (
    CALLEE_COLUMN,
    CALLER_COLUMN,
    CLASS_COLUMN,
    CLASS_SORT_ORDER,
    EDGE_ROLE,
)


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


def test_a_second_click_reverses_keeping_ties_in_order_and_the_selected_edge(window, state, qtbot):
    window.show_tab("edges")
    panel = window.edge_panel
    window.browser.select_key(max(state.opened.rows, key=lambda row: row.edges).key)
    given = panel.edges()  # by class (mistakes first), within a class by caller and callee
    assert len(given) > 3
    panel.select_row(len(given) - 1)
    selected = state.edge
    _click_header(qtbot, panel.table, CLASS_COLUMN)  # the table opens sorted by class: this reverses it
    reversed_rows = panel.edges()
    ranks = [CLASS_SORT_ORDER.index(edge.kind) for edge in reversed_rows]
    assert ranks == sorted(ranks, reverse=True)
    for kind in {edge.kind for edge in given}:  # ties keep the given order, in either direction
        assert [e for e in reversed_rows if e.kind == kind] == [e for e in given if e.kind == kind]
    assert panel.table.currentIndex().data(EDGE_ROLE) == selected  # the selection follows its row
    assert state.edge == selected
