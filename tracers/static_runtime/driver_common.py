"""What every analyzer driver shares: the program's source files and the record it writes.

Runs inside the sandboxed interpreter, beside the tool: standard library only, nothing of ours.
A driver writes one JSON document to the file named by `$TRACEEVAL_STATIC_OUT` (an inherited
descriptor the parent reads with bounds):

    {"tool": "pycg", "version": "0.0.8",
     "edges": [[caller, callee], ...],   each end {"name", "file", "line", "col", "kind"}
     "warnings": ["..."]}

`kind` is "module", "class", "function" or "" (the tool did not say); `file` is relative to the
program folder, "" when the tool gave none; `line` 1-based and `col` 0-based, 0 when unknown.
"""
import json
import os
import sys
from importlib import metadata

OUT_ENV = "TRACEEVAL_STATIC_OUT"


def source_files(suffix):
    """The program's files ending in `suffix`, relative to the working folder, in sorted walk order."""
    found = []
    for folder, folders, files in os.walk("."):
        folders.sort()
        for name in sorted(files):
            if name.endswith(suffix):
                found.append(os.path.relpath(os.path.join(folder, name), "."))
    return found


def version_of(*distributions):
    for name in distributions:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return ""


def end(name, file="", line=0, col=0, kind=""):
    return {"name": str(name), "file": file, "line": int(line or 0), "col": int(col or 0), "kind": kind}


def write(tool, version, edges, warnings=()):
    document = {"tool": tool, "version": version, "edges": edges, "warnings": list(warnings)}
    with open(os.environ[OUT_ENV], "w", encoding="utf-8") as out:
        json.dump(document, out)


def suffix_argument():
    """The source suffix the driver was asked to read (".py", ".js")."""
    if len(sys.argv) != 2 or not sys.argv[1].startswith("."):
        sys.exit(f"usage: {sys.argv[0]} .SUFFIX")
    return sys.argv[1]
