"""A pytest plugin (`-p no:pytest-qt -p tests.block_qt`) that makes Qt and pyqtgraph unimportable.

Used by the headless run of the core, tracer and CLI tests: they must pass on a machine
without a Qt install (a cluster node, a CI container)."""
import importlib.abc
import os
import sys

BLOCKED = ("PySide6", "shiboken6", "pyqtgraph")
os.environ["TRACEEVAL_QT_BLOCKED"] = "1"


class _QtBlocker(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in BLOCKED:
            raise ImportError(f"{fullname} is blocked: this is the headless test run")
        return None


for name in list(sys.modules):
    if name.split(".")[0] in BLOCKED:
        del sys.modules[name]
sys.meta_path.insert(0, _QtBlocker())
