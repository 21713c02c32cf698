"""`traceeval-gui`: the TraceEval Studio workbench window.

Without a dataset it reopens the last one (workspace, layout and selection), or the bundled
demo on a first start. With `--screenshot OUT.png` the window is rendered off screen at
1400x900 once the dataset is open, saved, and the program exits (0 on success, 2 when the
dataset, instance or model cannot be found); it never reads or writes the saved session.
"""
from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from traceeval_gui.app_options import APP_NAME, SCREENSHOT_SIZE, build_parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if bool(args.audit) != bool(args.annotator):
        parser.error("--audit and --annotator go together")
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if args.screenshot and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")  # PySide6 before pyqtgraph (docs/design.md)

    from PySide6.QtCore import QSettings, QTimer, qInstallMessageHandler
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication, QMessageBox

    from resources import DEMO_DATASET
    from traceeval_gui.state.app_state import AppState
    from traceeval_gui.state.error_log import install_error_reporting
    from traceeval_gui.workbench.main_window import MainWindow
    from traceeval_gui.workbench.theme_menu import ThemeController

    qInstallMessageHandler(_QtMessageLogger(quiet=os.environ.get("QT_QPA_PLATFORM") == "offscreen"))
    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("TraceEval Studio")
    app.setOrganizationName("TraceEval")
    app.setStyle("Fusion")
    app.setWindowIcon(_app_icon())
    QGuiApplication.setDesktopFileName("io.github.traceeval.Studio")  # Wayland: match the .desktop file

    screenshot = Path(args.screenshot) if args.screenshot else None
    settings = None if screenshot else QSettings()
    theme = ThemeController(settings)
    if args.theme:
        theme.choose(args.theme, remember=False)
    else:
        theme.apply()  # before the window: widgets built in it start with the theme's palette
    state = AppState()
    window = MainWindow(state, settings=settings, interactive=screenshot is None, theme=theme)
    uninstall_error_reporting = install_error_reporting(window.error_log)

    def fail(message: str) -> None:
        if screenshot is not None:
            print(f"{APP_NAME}: error: {message}", file=sys.stderr)
            app.exit(2)
        else:
            window.error_log.report("Start", message)
            QMessageBox.warning(window, "TraceEval Studio", message)

    def on_opened() -> None:
        state.dataset_opened.disconnect(on_opened)  # later openings (File menu) keep their own selection
        problem = _apply_initial_selection(window, state, args)
        if problem:
            fail(problem)
            return
        shown = window
        if args.audit:
            shown = window.audits.open_audit(args.audit, args.annotator)
            if shown is None:
                fail(f"cannot open audit {args.audit!r} (see 'traceeval audit list')")
                return
        if screenshot is not None:
            shown.resize(*SCREENSHOT_SIZE)  # an audit window sizes itself to the screen; offscreen's is 800x800
            QTimer.singleShot(0, lambda: save_screenshot(shown))

    def save_screenshot(shown) -> None:
        app.processEvents()
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        if not shown.grab().save(str(screenshot), "PNG"):
            fail(f"cannot write {screenshot}")
            return
        print(f"wrote {screenshot}: {window.windowTitle()}, {window.programs_label.text()}")  # what was shown
        app.exit(0)

    state.dataset_opened.connect(on_opened)
    if screenshot is not None:
        window.dataset_failed.connect(fail)
    if screenshot is not None:
        window.resize(*SCREENSHOT_SIZE)
        window.apply_default_layout()
    if args.dataset or args.workspace or screenshot is not None or not window.restore_session():
        root = Path(args.dataset) if args.dataset else None if args.workspace else DEMO_DATASET
        window.open_dataset(root, args.workspace, args.splits)
    window.show()
    code = app.exec()
    if window.isVisible():
        window.close()  # saves the layout, waits for running jobs, closes the workspace
    uninstall_error_reporting()
    return code


def _apply_initial_selection(window, state, args) -> str | None:
    """Select the program, models, tab and graph mode named on the command line; a message when
    one is unknown."""
    for model, select in ((args.model, state.select_model), (args.model_b, state.select_compare_model)):
        if model:
            if state.model_row(model) is None:
                known = ", ".join(m.name for m in state.models) or "none"
                return f"no model named {model!r} in the workspace (known: {known})"
            select(model)
    if args.tab:
        window.show_tab(args.tab)
    if args.mode:
        state.set_view_mode(args.mode)
    instance = args.instance
    if instance:
        key = state.resolve_instance(instance)
        if key is None:
            return f"no program {instance!r} in the dataset (or it exists in several languages: use language/id)"
        window.browser.select_key(key)
    return None


def _app_icon():
    """The window icon from the hicolor PNG renders (PNG needs no SVG icon-engine plugin)."""
    from PySide6.QtGui import QIcon

    from resources import ICON_THEME_DIR

    icon = QIcon()
    for png in ICON_THEME_DIR.glob("*/apps/traceeval-studio.png"):
        icon.addFile(str(png))
    return icon


class _QtMessageLogger:
    """Route Qt's own messages into `logging` (logger "qt"). Off screen, Qt warns about window
    features it lacks (e.g. propagateSizeHints); those only matter when debugging."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.log = logging.getLogger("qt")

    def __call__(self, kind, _context, message: str) -> None:
        from PySide6.QtCore import QtMsgType

        if kind in (QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg):
            self.log.error("%s", message)
        elif kind == QtMsgType.QtWarningMsg and not self.quiet:
            self.log.warning("%s", message)
        else:
            self.log.debug("%s", message)


if __name__ == "__main__":
    sys.exit(main())
