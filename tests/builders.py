"""Write small programs and datasets in the released layout for tests."""
from __future__ import annotations

import json
from pathlib import Path


def write_program(folder: Path, files: dict[str, str | bytes], callgraph: dict | str | None = None,
                  source_url: str = "https://example.org/repo") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for relative, content in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    if callgraph is not None:
        text = callgraph if isinstance(callgraph, str) else json.dumps(callgraph, indent=2)
        (folder / "callgraph.json").write_text(text, encoding="utf-8")
    (folder / "README.md").write_text(f"Source: {source_url}\nOriginal file: src/{folder.name}.py\n")
    return folder


PY_MAIN = """\
class Shape:
    def __init__(self, name):
        self.name = name

    def area(self):
        return 0


def helper(x):
    return x * 2


def run():
    s = Shape("a")
    return helper(s.area())


if __name__ == "__main__":
    run()
"""

PY_GRAPH = {
    "main": ["main.run"],
    "main.Shape.__init__": [],
    "main.Shape.area": [],
    "main.helper": [],
    "main.run": ["main.Shape.__init__", "main.helper", "main.Shape.area"],
}

JS_MAIN = """\
function greet(name) {
  return format(name);
}
function format(s) {
  return s.toUpperCase();
}
console.log(greet("x"));
"""

JS_GRAPH = {"main": ["main.greet"], "main.greet": ["main.format"], "main.format": []}

JAVA_MAIN = """\
package demo;

public class Main {
    private int total;

    public Main(int start) {
        this.total = start;
    }

    int add(int x) {
        return total += x;
    }

    public static void main(String[] args) {
        Main m = new Main(1);
        m.add(2);
    }
}
"""

JAVA_GRAPH = {
    "demo.Main:<init>(int)": [],
    "demo.Main:add(int)": [],
    "demo.Main:main(java.lang.String[])": ["demo.Main:<init>(int)", "demo.Main:add(int)"],
}


def released_dataset(root: Path, programs: dict[str, list[str]], splits: dict[str, dict[str, list[str]]] | None = None,
                     ) -> Path:
    """programs: language -> ids, each a copy of that language's sample program; splits: split -> language -> ids."""
    samples = {"python": ({"main.py": PY_MAIN}, PY_GRAPH), "javascript": ({"main.js": JS_MAIN}, JS_GRAPH),
               "java": ({"demo/Main.java": JAVA_MAIN}, JAVA_GRAPH)}
    for language, ids in programs.items():
        files, graph = samples[language]
        for program_id in ids:
            write_program(root / "benchmark" / language / program_id, files, graph)
    if splits is not None:
        folder = root / "traceeval_split"
        folder.mkdir(parents=True, exist_ok=True)
        for split in ("test", "train"):
            (folder / f"{split}_ids.json").write_text(json.dumps(splits.get(split, {})))
        for language in ("python", "javascript", "java"):
            assignment = {pid.rpartition("_")[0]: split for split, langs in splits.items()
                          for pid in langs.get(language, [])}
            (folder / f"{language}_repo_assignment.json").write_text(json.dumps(assignment))
    return root


def newer_workspace(path: Path) -> Path:
    """A workspace file that claims a schema step this version does not know (made by a newer release)."""
    from sqlite_utils import Database

    from core.dataset.workspace import Workspace

    Workspace(path).close()
    db = Database(path)
    db["_sqlite_migrations"].insert({"migration_set": "traceeval-workspace", "name": "m999_future",
                                     "applied_at": "2030-01-01"})
    db.close()
    return path
