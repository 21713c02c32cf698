"""View > Theme: the palette switches, the choice is remembered, and painted tints follow it."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from tests.gui.test_menu_actions import all_menu_items
from traceeval_gui.theme.style import EDGE_TINTS, edge_tint, is_dark, score_bar_colour
from traceeval_gui.workbench.theme_menu import THEME_SETTING, ThemeController


def contrast(a, b) -> float:
    def luminance(colour) -> float:
        def channel(c: float) -> float:
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
        return 0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF()) + 0.0722 * channel(colour.blueF())
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.fixture
def light_afterwards(qtbot):
    yield
    ThemeController().choose("light", remember=False)


@pytest.mark.usefixtures("light_afterwards")
def test_view_theme_dark_makes_the_window_and_the_edge_rows_dark(window, qtbot):
    all_menu_items(window)["View › Theme › Dark"].trigger()
    palette = QApplication.palette()
    assert is_dark()
    qtbot.waitUntil(lambda: window.edge_panel.palette().color(QPalette.ColorRole.Base).lightness() < 60)
    text = palette.color(QPalette.ColorRole.Text)
    for kind in EDGE_TINTS:  # the edge table's row backgrounds keep the palette's text readable
        assert contrast(edge_tint(kind), text) >= 7, kind
    assert contrast(score_bar_colour(), text) >= 4.5
    model = window.edge_panel.table.model()
    brush = model.index(0, 0).data(0x8)  # Qt.BackgroundRole
    assert brush is None or brush.color().lightness() < 100

    all_menu_items(window)["View › Theme › Light"].trigger()
    assert not is_dark() and edge_tint("TP").name() == EDGE_TINTS["TP"]


@pytest.mark.usefixtures("light_afterwards")
def test_the_theme_is_remembered(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    ThemeController(settings).choose("dark")
    assert settings.value(THEME_SETTING) == "dark"
    again = ThemeController(settings)
    assert again.theme == "dark" and again.dark
    ThemeController(settings).choose("light", remember=False)
    assert settings.value(THEME_SETTING) == "dark"  # --theme does not change the remembered choice


@pytest.mark.usefixtures("light_afterwards")
def test_notes_above_views_take_the_dark_palette(window, qtbot):
    from traceeval_gui.widgets.note_label import NOTE_COLOURS

    notes = (window.graph_panel.banner, window.graph_panel.omitted, window.answer_panel.response_note)
    assert all(NOTE_COLOURS[False][1] in note.styleSheet() for note in notes)
    all_menu_items(window)["View › Theme › Dark"].trigger()
    qtbot.waitUntil(lambda: all(NOTE_COLOURS[True][1] in note.styleSheet() for note in notes))
    assert contrast(QColor(NOTE_COLOURS[True][0]), QColor(NOTE_COLOURS[True][1])) >= 7
    assert contrast(QColor(NOTE_COLOURS[False][0]), QColor(NOTE_COLOURS[False][1])) >= 4.5


@pytest.mark.usefixtures("light_afterwards")
def test_the_answer_text_takes_the_dark_theme_and_back(window, qtbot):
    from traceeval_gui.widgets.answer_text import DARK_COLOURS, LIGHT_COLOURS

    window.show_tab("answer")
    view = window.answer_panel.text_view
    assert view.colours is LIGHT_COLOURS
    all_menu_items(window)["View › Theme › Dark"].trigger()
    qtbot.waitUntil(lambda: view.colours is DARK_COLOURS)
    image = view.viewport().grab().toImage()
    assert image.pixelColor(image.width() - 5, image.height() - 5).lightness() < 60  # the page is dark
    gutter = view.gutter.grab().toImage()
    assert gutter.pixelColor(2, gutter.height() - 3).lightness() < 60
    assert contrast(DARK_COLOURS.key_text, QColor(DARK_COLOURS.page)) >= 7
    all_menu_items(window)["View › Theme › Light"].trigger()
    qtbot.waitUntil(lambda: view.colours is LIGHT_COLOURS)


@pytest.mark.usefixtures("light_afterwards")
def test_the_toolbar_legend_lifts_its_class_colours_on_a_dark_page(window, qtbot):
    from traceeval_gui.graph.legend import EdgeLegendView
    from traceeval_gui.theme.style import EDGE_COLOURS

    legend = window.findChild(EdgeLegendView)
    assert EDGE_COLOURS["FP"] in legend.text()
    all_menu_items(window)["View › Theme › Dark"].trigger()
    lifted = QColor(EDGE_COLOURS["FP"]).lighter(150).name()
    qtbot.waitUntil(lambda: lifted in legend.text())
    page = QApplication.palette().color(QPalette.ColorRole.Window)
    assert contrast(QColor(lifted), page) > contrast(QColor(EDGE_COLOURS["FP"]), page)


def test_the_lifted_class_colours_of_the_dark_theme_still_differ_for_every_vision():
    from core.report.palette import CVD_MIN_DELTA_E, EDGE_STYLES
    from tests.test_palette_colour_vision import PAIRS, VISIONS, _delta_e
    from traceeval_gui.theme.style import on_page
    from traceeval_gui.workbench.theme_menu import dark_palette

    lifted = {name: on_page(style.colour, dark_palette()).name() for name, style in EDGE_STYLES.items()}
    too_close = [(mode, a, b, vision, round(_delta_e(lifted[a], lifted[b], vision), 1))
                 for mode, a, b in PAIRS for vision in VISIONS
                 if _delta_e(lifted[a], lifted[b], vision) < CVD_MIN_DELTA_E]
    assert not too_close
