"""Optional dependencies, imported only by the code that needs them and named by the extra that installs them.

`require("pandas", "frames", "data frames")` gives the module, or raises `MissingExtraError` with one line saying
what to install: `pandas is needed for data frames: pip install 'traceeval-studio[frames]'`.
"""
from __future__ import annotations

import importlib
from types import ModuleType

from core.errors import MissingExtraError

DISTRIBUTION = "traceeval-studio"


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """The module `module`, imported now; a `MissingExtraError` naming `extra` when it is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError:
        top = module.split(".")[0]
        raise MissingExtraError(f"{top} is needed for {purpose}: pip install '{DISTRIBUTION}[{extra}]'") from None
