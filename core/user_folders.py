"""Where this project keeps its files for the user: the XDG folders, each overridable by a variable.

- cache (`$TRACEEVAL_CACHE_DIR`, else `$XDG_CACHE_HOME/traceeval-studio`, else `~/.cache/...`): the
  answer cache, the Java agent, corpora extracted from a release's archive;
- config (`$TRACEEVAL_CONFIG_DIR`, else `$XDG_CONFIG_HOME/traceeval-studio`): endpoints, credentials;
- data (`$XDG_DATA_HOME/traceeval-studio`, else `~/.local/share/...`): workspaces.
"""
from __future__ import annotations

import os
from pathlib import Path

APP = "traceeval-studio"
CACHE_DIR_ENV = "TRACEEVAL_CACHE_DIR"
CONFIG_DIR_ENV = "TRACEEVAL_CONFIG_DIR"


def cache_dir() -> Path:
    return _folder(CACHE_DIR_ENV, "XDG_CACHE_HOME", "~/.cache")


def config_dir() -> Path:
    return _folder(CONFIG_DIR_ENV, "XDG_CONFIG_HOME", "~/.config")


def data_dir() -> Path:
    return _folder(None, "XDG_DATA_HOME", "~/.local/share")


def _folder(own: str | None, xdg: str, default: str) -> Path:
    if own and os.environ.get(own):
        return Path(os.environ[own])
    return Path(os.environ.get(xdg) or os.path.expanduser(default)) / APP
