"""Where this project keeps its files for the user, each folder overridable by a variable.

The folders are the platform's own (platformdirs: XDG on Linux, ~/Library on macOS, %LOCALAPPDATA% on
Windows); on Linux they are the ones this project always used, so nothing moves:
- cache (`$TRACEEVAL_CACHE_DIR`, else `$XDG_CACHE_HOME/traceeval-studio`, else `~/.cache/...`): the
  answer cache, the Java agent, corpora extracted from a release's archive;
- config (`$TRACEEVAL_CONFIG_DIR`, else `$XDG_CONFIG_HOME/traceeval-studio`, else `~/.config/...`):
  endpoints, credentials, the TraceEval releases the user confirmed (`core.release.confirmed`);
- data (`$XDG_DATA_HOME/traceeval-studio`, else `~/.local/share/...`), and in it the default workspaces
  (`$TRACEEVAL_WORKSPACE_DIR`, else `<data>/workspaces`).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import platformdirs

APP = "traceeval-studio"
CACHE_DIR_ENV = "TRACEEVAL_CACHE_DIR"
CONFIG_DIR_ENV = "TRACEEVAL_CONFIG_DIR"
WORKSPACE_DIR_ENV = "TRACEEVAL_WORKSPACE_DIR"


def cache_dir() -> Path:
    return _overridden(CACHE_DIR_ENV) or platformdirs.user_cache_path(APP, appauthor=False)


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
