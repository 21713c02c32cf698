"""The code view takes its colours from its palette: a dark palette gives dark code with light text,
a dark gutter and line numbers that read on it, and syntax colours that read on the dark base."""
from pygments.styles import get_style_by_name
from pygments.token import Keyword
from PySide6.QtGui import QColor, QImage, QPalette

from traceeval_gui.program.source_file_view import SourceFileView
from traceeval_gui.widgets.code_highlighter import STYLES

SOURCE = '"""A module."""\n\n\ndef total(values):\n    # add them up\n    return sum(values) + 1\n' * 3
DARK = {QPalette.ColorRole.Base: "#1e1f22", QPalette.ColorRole.AlternateBase: "#26282c",
        QPalette.ColorRole.Text: "#dfe1e5", QPalette.ColorRole.Window: "#2b2d30",
        QPalette.ColorRole.WindowText: "#dfe1e5", QPalette.ColorRole.PlaceholderText: "#8c9096"}


def dark_palette(base: QPalette) -> QPalette:
    palette = QPalette(base)
    for role, colour in DARK.items():
        palette.setColor(role, QColor(colour))
    return palette


def colours_in(image: QImage, left: int, right: int) -> set[str]:
    return {image.pixelColor(x, y).name() for x in range(left, right, 2) for y in range(0, image.height(), 2)}


def lightness(name: str) -> int:
    return QColor(name).lightness()


def test_a_dark_palette_paints_the_code_gutter_and_numbers_dark(qtbot):
    view = SourceFileView("calc.py", SOURCE, "python")
    qtbot.addWidget(view)
    view.resize(520, 260)
    view.show()
    light = view.grab().toImage()
    gutter = view.gutter.width()
    assert lightness(light.pixelColor(gutter + 300, 200).name()) > 200  # light by default
    view.setPalette(dark_palette(view.palette()))
    assert view.highlighter.dark
    image = view.grab().toImage()
    code = colours_in(image, gutter + 4, image.width())
    margin = colours_in(image, 0, gutter - 2)
    assert DARK[QPalette.ColorRole.Base] in code and "#ffffff" not in code
    assert DARK[QPalette.ColorRole.AlternateBase] in margin and "#f6f7f9" not in margin
    bright_text = [c for c in code if lightness(c) > 150]
    assert bright_text, "the code's text must be light on the dark base"
    assert [c for c in margin if lightness(c) > 90], "the line numbers must read on the dark gutter"
    # a keyword takes the dark pygments style's colour, not the light one's
    keyword = QColor("#" + get_style_by_name(STYLES[True]).style_for_token(Keyword)["color"])
    assert any(_close(QColor(c), keyword) for c in code)
    view.setPalette(QPalette())  # back to the application's palette: light again
    assert not view.highlighter.dark
    assert lightness(view.grab().toImage().pixelColor(gutter + 300, 200).name()) > 200


def _close(a: QColor, b: QColor) -> bool:
    return abs(a.red() - b.red()) + abs(a.green() - b.green()) + abs(a.blue() - b.blue()) < 30



def test_the_audit_call_site_tint_follows_the_palette(qtbot):
    from traceeval_gui.audit.audit_evidence import CALL_SITE_TINTS, CodeSpanView

    view = CodeSpanView()
    qtbot.addWidget(view)
    view.resize(500, 200)
    view.show()
    view.show_span(SOURCE, "python", first_line=10, marked=[13, 15])
    tints = lambda: {s.format.background().color().name() for s in view.extraSelections()}  # noqa: E731
    assert tints() == {CALL_SITE_TINTS[False].name()}
    view.setPalette(dark_palette(view.palette()))
    qtbot.waitUntil(lambda: tints() == {CALL_SITE_TINTS[True].name()})
    assert view.marked_lines() == [13, 15]
