"""Where this project keeps its files for the user, each folder overridable by a variable.

The folders are the platform's own (platformdirs: XDG on Linux, ~/Library on macOS, %LOCALAPPDATA% on
Windows); on Linux they are the ones this project always used, so nothing moves:
- cache (`$TRACEEVAL_CACHE_DIR`, else `$XDG_CACHE_HOME/traceeval-studio`, else `~/.cache/...`): the
  answer cache, the Java agent, corpora extracted from a release's archive;
- config (`$TRACEEVAL_CONFIG_DIR`, else `$XDG_CONFIG_HOME/traceeval-studio`, else `~/.config/...`):
  endpoints, credentials, the TraceEval releases the user confirmed (`core.release.confirmed`);
- data (`$XDG_DATA_HOME/traceeval-studio`, else `~/.local/share/...`), and in it the default workspaces
  (`$TRACEEVAL_WORKSPACE_DIR`, else `<data>/workspaces`).

What is only a cache still works where the home folder cannot be written (a service account, `nobody`, a read-only
home): `writable_cache_dir` then falls back to a folder of this user's own under the temporary folder.
"""
from __future__ import annotations

import json
import logging
import os
import stat
import tempfile
from functools import cache
from pathlib import Path

import platformdirs

log = logging.getLogger(__name__)

APP = "traceeval-studio"
CACHE_DIR_ENV = "TRACEEVAL_CACHE_DIR"
CONFIG_DIR_ENV = "TRACEEVAL_CONFIG_DIR"
WORKSPACE_DIR_ENV = "TRACEEVAL_WORKSPACE_DIR"


def cache_dir() -> Path:
    return _overridden(CACHE_DIR_ENV) or platformdirs.user_cache_path(APP, appauthor=False)


def writable_cache_dir() -> Path:
    """`cache_dir()`, created; where it cannot be written, a private folder of this user's in the temporary
    folder (said once in the log, and by `cache_dir_problem`)."""
    return _writable(cache_dir())


@cache
def _writable(folder: Path) -> Path:
    problem = cache_dir_problem(folder)
    if not problem:
        return folder
    fallback = _private_temporary_folder()
    log.warning("%s: using %s instead", problem, fallback)
    return fallback


def cache_dir_problem(folder: Path | None = None) -> str:
    """Why the cache folder (or `folder`) cannot be used ('' when it can)."""
    return _folder_problem(folder or cache_dir(), "the cache folder")


def _folder_problem(folder: Path, what: str) -> str:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        return f"{what} {folder} cannot be written ({error.strerror or error})"
    return ""


def _private_temporary_folder() -> Path:
    """`<tmp>/traceeval-studio-<uid>`: made 0700 by this user, or refused (a link or someone else's folder there)
    for a new folder of its own."""
    folder = Path(tempfile.gettempdir()) / f"{APP}-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError:
        return Path(tempfile.mkdtemp(prefix=f"{APP}-"))
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return Path(tempfile.mkdtemp(prefix=f"{APP}-"))
    return folder


def folder_rows() -> list[tuple[str, bool, str]]:
    """`traceeval doctor`'s rows for the user folders: (check, ok, detail). Makes the folders that are missing."""
    cache_problem = cache_dir_problem()
    rows = [("folder: cache", not cache_problem, f"{cache_problem}: caches go to {_writable(cache_dir())} instead"
             if cache_problem else str(cache_dir()))]
    for name, folder in (("config", config_dir()), ("workspaces", workspace_dir())):
        problem = _folder_problem(folder, f"the {name} folder")
        rows.append((f"folder: {name}", not problem, problem or str(folder)))
    return rows


def config_dir() -> Path:
    return _overridden(CONFIG_DIR_ENV) or platformdirs.user_config_path(APP, appauthor=False)


def data_dir() -> Path:
    return platformdirs.user_data_path(APP, appauthor=False)


def workspace_dir() -> Path:
    """Where a dataset's workspace goes when the user picks none."""
    return _overridden(WORKSPACE_DIR_ENV) or data_dir() / "workspaces"


def _overridden(variable: str) -> Path | None:
    return Path(os.environ[variable]) if os.environ.get(variable) else None


def write_private_json(path: Path, data) -> None:
    """Write JSON atomically, readable by the owner only (the folder too, when it is made here)."""
    if not path.parent.is_dir():
        path.parent.mkdir(parents=True, mode=0o700, exist_ok=True)
        os.chmod(path.parent, 0o700)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o600)  # in case an old temporary file existed with other bits
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
