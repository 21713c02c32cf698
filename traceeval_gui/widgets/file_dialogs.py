"""Every file dialog of the app: choosing a file or folder never opens one.

Qt's own dialog asks the platform's MIME database for each listed file's icon and type, which reads
the file's first bytes. When the listed folder holds the open workspace, closing that descriptor makes
SQLite drop all of this process's locks on the workspace; the next `traceeval` command to close its
connection then believes it is the last one and deletes the WAL under the window's live connection
(see core/dataset/workspace_db.py). So the dialogs here are Qt's own (a platform dialog runs in this process
too and sniffs the same way) and name a file's type by its name alone.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QFileInfo
from PySide6.QtWidgets import QDialog, QFileDialog, QFileIconProvider, QMessageBox, QPushButton, QWidget

from core.safe_files import in_use_by_sqlite

SAFE_OPTIONS = QFileDialog.Option.DontUseNativeDialog | QFileDialog.Option.DontUseCustomDirectoryIcons


class NameOnlyIconProvider(QFileIconProvider):
    """Icons and type names from a file's name and kind (folder or not), never from its contents."""

    def icon(self, what):
        if isinstance(what, QFileInfo):
            kind = QFileIconProvider.IconType.Folder if what.isDir() else QFileIconProvider.IconType.File
            return super().icon(kind)
        return super().icon(what)

    def type(self, info: QFileInfo) -> str:
        if info.isDir():
            return "Folder"
        suffix = info.suffix()
        return f"{suffix.upper()} file" if suffix else "File"


def file_dialog(parent: QWidget | None, caption: str, start: str, filters: str = "", *,
                mode: QFileDialog.FileMode = QFileDialog.FileMode.ExistingFile,
                save: bool = False) -> QFileDialog:
    """A dialog set up to list folders without reading any file; `exec()` it, or use the helpers below."""
    dialog = QFileDialog(parent, caption, str(start), filters)
    dialog.setOptions(SAFE_OPTIONS | (QFileDialog.Option.ShowDirsOnly if mode == QFileDialog.FileMode.Directory
                                      else QFileDialog.Option(0)))
    dialog.setIconProvider(NameOnlyIconProvider())
    dialog.setFileMode(mode)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave if save else QFileDialog.AcceptMode.AcceptOpen)
    return dialog


def open_file_name(parent: QWidget | None, caption: str, start: str, filters: str = "") -> str:
    """An existing file the user picked ("" when cancelled)."""
    return next(iter(_chosen(file_dialog(parent, caption, start, filters))), "")


def open_file_names(parent: QWidget | None, caption: str, start: str, filters: str = "") -> list[str]:
    """Existing files the user picked to read as data ([] when cancelled); a database in use is refused."""
    return _not_in_use(parent, caption, _chosen(file_dialog(parent, caption, start, filters,
                                                            mode=QFileDialog.FileMode.ExistingFiles)))


def open_files_or_folder(parent: QWidget | None, caption: str, start: str, filters: str = "",
                         folder_button: str = "Choose This &Folder") -> list[str]:
    """Existing files, or one folder (the folder selected in the list, else the one shown), the user picked to
    read as data ([] when cancelled); a database in use is refused."""
    dialog = file_dialog(parent, caption, start, filters, mode=QFileDialog.FileMode.ExistingFiles)
    chosen_folder: list[str] = []

    def choose_folder() -> None:
        selected = [path for path in dialog.selectedFiles() if Path(path).is_dir()]
        chosen_folder[:] = [selected[0] if selected else dialog.directory().absolutePath()]
        QDialog.done(dialog, QDialog.DialogCode.Accepted)  # QFileDialog's own accept() would enter the folder

    button = QPushButton(folder_button)
    button.setObjectName("choose_folder_button")
    button.setToolTip("Use every file of the folder shown (or selected) and of its subfolders")
    button.clicked.connect(choose_folder)
    layout = dialog.layout()
    if layout is not None:  # Qt's own dialog: a grid, its buttons in the last row
        layout.addWidget(button, layout.rowCount(), 0, 1, layout.columnCount())
    files = _chosen(dialog)
    return _not_in_use(parent, caption, chosen_folder or files)


def save_file_name(parent: QWidget | None, caption: str, start: str, filters: str = "") -> str:
    """Where the user wants a file written ("" when cancelled); an existing file is confirmed first, and
    a database in use (the open workspace) is refused."""
    chosen = _chosen(file_dialog(parent, caption, start, filters, mode=QFileDialog.FileMode.AnyFile, save=True))
    return next(iter(_not_in_use(parent, caption, chosen)), "")


def existing_directory(parent: QWidget | None, caption: str, start: str) -> str:
    """A folder the user picked ("" when cancelled)."""
    return next(iter(_chosen(file_dialog(parent, caption, start, mode=QFileDialog.FileMode.Directory))), "")


def _not_in_use(parent: QWidget | None, caption: str, paths: list[str]) -> list[str]:
    """`paths`, or [] after saying why when one is a database a process has open (reading or writing it as
    a plain file would drop that process's locks, or overwrite its data)."""
    busy = [path for path in paths if in_use_by_sqlite(path)]
    if busy:
        QMessageBox.warning(parent, caption, f"{busy[0]}: a database in use (a workspace), not a file to read or "
                                             "write here: choose another file")
        return []
    return paths


def _chosen(dialog: QFileDialog) -> list[str]:
    try:
        return dialog.selectedFiles() if dialog.exec() else []
    finally:
        dialog.deleteLater()
