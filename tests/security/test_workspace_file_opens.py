"""Nothing in the app opens a workspace outside its SQLite connection (issue #18): closing any other
descriptor of the file drops the process's SQLite locks. The Qt classes that list, sniff or watch files
appear only in the one file-dialog helper, and no module but core/dataset/workspace_db.py connects to SQLite."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DIALOG_HELPER = Path("traceeval_gui/widgets/file_dialogs.py")
CONNECTION_HELPER = Path("core/dataset/workspace_db.py")
FILE_READING_QT = re.compile(r"\b(QFileDialog|QFileSystemModel|QFileIconProvider|QMimeDatabase|QFileSystemWatcher"
                             r"|QFile|QSqlDatabase|QSaveFile|QLockFile)\b")
SQLITE_CONNECT = re.compile(r"\bsqlite3\.connect\(|\bDatabase\(")


def sources() -> dict[Path, str]:
    return {path.relative_to(ROOT): path.read_text(encoding="utf-8")
            for package in ("core", "tracers", "traceeval_gui") for path in (ROOT / package).rglob("*.py")}


def test_only_the_dialog_helper_uses_qt_classes_that_open_files():
    users = sorted(str(path) for path, text in sources().items()
                   if path != DIALOG_HELPER and FILE_READING_QT.search(text))
    assert users == []


def test_only_the_connection_helper_connects_to_sqlite():
    users = sorted(str(path) for path, text in sources().items()
                   if path != CONNECTION_HELPER and SQLITE_CONNECT.search(text))
    assert users == []
