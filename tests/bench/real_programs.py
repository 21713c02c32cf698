"""Small real Python and JavaScript programs with varied call structure, their ground truth traced by this project.

`tests/bench/synthetic.py` draws random graphs: fine for timing, meaningless for a static analyzer. These programs
are built from features (plain calls, classes and overriding methods called through a list, nested functions,
lambdas and arrows passed to library functions, callbacks, dispatch tables, decorators, getattr, a second module),
a few per program, drawn with a seed; `write_dataset` writes them in the released layout and takes each
`callgraph.json` from the project's own tracer (`tracers.trace_instance`), as TraceEval took its truth from runs.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

PYTHON_FEATURES = {
    "chain": ("def step_a{n}(x):\n    return step_b{n}(x) + 1\n\n\ndef step_b{n}(x):\n    return step_c{n}(x) * 2\n\n\n"
              "def step_c{n}(x):\n    return x - 1\n", "step_a{n}(3)"),
    "classes": ("class Shape{n}:\n    def __init__(self, size):\n        self.size = size\n\n    def area(self):\n"
                "        return 0\n\n    def report(self):\n        return self.area() + 1\n\n\n"
                "class Square{n}(Shape{n}):\n"
                "    def area(self):\n        return self.size * self.size\n\n\nclass Disc{n}(Shape{n}):\n"
                "    def __init__(self, size):\n        super().__init__(size)\n\n    def area(self):\n"
                "        return 3 * self.size\n", "[s.report() for s in (Square{n}(2), Disc{n}(1))]"),
    "nested": ("def outer{n}(xs):\n    def inner(x):\n        return x + 1\n    return [inner(x) for x in xs]\n",
               "outer{n}([1, 2])"),
    "lambda": ("def rank{n}(xs):\n    return sorted(xs, key=lambda x: weight{n}(x))\n\n\ndef weight{n}(x):\n"
               "    return -x\n", "rank{n}([3, 1, 2])"),
    "callback": ("def apply{n}(f, xs):\n    return [f(x) for x in xs]\n\n\ndef double{n}(x):\n    return 2 * x\n",
                 "apply{n}(double{n}, [1, 2])"),
    "dispatch": ("def on_add{n}(a, b):\n    return a + b\n\n\ndef on_sub{n}(a, b):\n    return a - b\n\n\n"
                 "TABLE{n} = {{'add': on_add{n}, 'sub': on_sub{n}}}\n\n\ndef run{n}(op):\n"
                 "    return TABLE{n}[op](4, 2)\n", "run{n}('add')"),
    "decorator": ("def logged{n}(f):\n    def wrapper(*args):\n        return f(*args)\n    return wrapper\n\n\n"
                  "@logged{n}\ndef work{n}(x):\n    return x * 3\n", "work{n}(2)"),
    "getattr": ("class Handler{n}:\n    def do_ping(self):\n        return 'pong'\n\n    def handle(self, what):\n"
                "        return getattr(self, 'do_' + what)()\n", "Handler{n}().handle('ping')"),
    "statics": ("class Maths{n}:\n    @staticmethod\n    def half(x):\n        return x / 2\n\n    @classmethod\n"
                "    def make(cls):\n        return cls.half(8)\n", "Maths{n}.make()"),
    "module": ("from helpers import util{n}\n", "util{n}.tidy('a b')"),
}
PYTHON_MODULE = ("def tidy(text):\n    return clean(text).strip()\n\n\n"
                 "def clean(text):\n    return text.replace(' ', '')\n")

JS_FEATURES = {
    "chain": ("function stepA{n}(x) {{ return stepB{n}(x) + 1; }}\nfunction stepB{n}(x) {{ return stepC{n}(x) * 2; }}\n"
              "function stepC{n}(x) {{ return x - 1; }}\n", "stepA{n}(3);"),
    "classes": ("class Shape{n} {{\n  constructor(size) {{ this.size = size; }}\n  area() {{ return 0; }}\n"
                "  report() {{ return this.area() + 1; }}\n}}\nclass Square{n} extends Shape{n} {{\n"
                "  area() {{ return this.size * this.size; }}\n}}\nclass Disc{n} extends Shape{n} {{\n"
                "  constructor(size) {{ super(size); }}\n  area() {{ return 3 * this.size; }}\n}}\n",
                "[new Square{n}(2), new Disc{n}(1)].map((s) => s.report());"),
    "nested": ("function outer{n}(xs) {{\n  function inner(x) {{ return x + 1; }}\n  return xs.map(inner);\n}}\n",
               "outer{n}([1, 2]);"),
    "arrow": ("function rank{n}(xs) {{ return xs.slice().sort((a, b) => weight{n}(a) - weight{n}(b)); }}\n"
              "function weight{n}(x) {{ return -x; }}\n", "rank{n}([3, 1, 2]);"),
    "callback": ("function apply{n}(f, xs) {{ return xs.map(f); }}\nfunction double{n}(x) {{ return 2 * x; }}\n",
                 "apply{n}(double{n}, [1, 2]);"),
    "object": ("const ops{n} = {{\n  add(a, b) {{ return a + b; }},\n  twice(a) {{ return this.add(a, a); }},\n}};\n",
               "ops{n}.twice(3);"),
    "dispatch": ("function onAdd{n}(a, b) {{ return a + b; }}\nfunction onSub{n}(a, b) {{ return a - b; }}\n"
                 "const TABLE{n} = {{ add: onAdd{n}, sub: onSub{n} }};\n"
                 "function run{n}(op) {{ return TABLE{n}[op](4, 2); }}\n", "run{n}('add');"),
    "module": ("const util{n} = require('./helpers/util{n}');\n", "util{n}.tidy('a b');"),
}
JS_MODULE = ("function clean(text) {\n  return text.replace(' ', '');\n}\nfunction tidy(text) {\n"
             "  return clean(text).trim();\n}\nmodule.exports = { tidy };\n")


def python_program(rng: random.Random) -> dict[str, str]:
    chosen = rng.sample(sorted(PYTHON_FEATURES), rng.randint(2, 5))
    files: dict[str, str] = {}
    heads, bodies, calls = [], [], []
    for n, feature in enumerate(chosen):
        body, call = PYTHON_FEATURES[feature]
        if feature == "module":
            heads.append(body.format(n=n))
            files[f"helpers/util{n}.py"] = PYTHON_MODULE
            files["helpers/__init__.py"] = ""
        else:
            bodies.append(body.format(n=n))
        calls.append(f"    print({call.format(n=n)})")
    files["main.py"] = ("".join(heads) + "\n\n" + "\n\n".join(bodies) + "\n\ndef main():\n" + "\n".join(calls)
                        + "\n\n\nif __name__ == '__main__':\n    main()\n")
    return files


def javascript_program(rng: random.Random) -> dict[str, str]:
    chosen = rng.sample(sorted(JS_FEATURES), rng.randint(2, 5))
    files: dict[str, str] = {}
    heads, bodies, calls = [], [], []
    for n, feature in enumerate(chosen):
        body, call = JS_FEATURES[feature]
        if feature == "module":
            heads.append(body.format(n=n))
            files[f"helpers/util{n}.js"] = JS_MODULE
        else:
            bodies.append(body.format(n=n))
        calls.append(f"  console.log({call.format(n=n).rstrip(';')});")
    files["main.js"] = ("'use strict';\n" + "".join(heads) + "\n" + "\n".join(bodies) + "\nfunction main() {\n"
                        + "\n".join(calls) + "\n}\n\nmain();\n")
    return files


def write_dataset(root: Path, count: int = 300, seed: int = 21) -> dict[str, int]:
    """`count` programs (half Python, half JavaScript) under `root/benchmark/`, each with a traced callgraph.json.
    Returns how many programs each tracer status gave."""
    from core.dataset.layout import load_program
    from tracers import trace_instance

    rng = random.Random(seed)
    statuses: dict[str, int] = {}
    makers = {"python": python_program, "javascript": javascript_program}
    for number in range(count):
        language = ("python", "javascript")[number % 2]
        folder = root / "benchmark" / language / f"gen{number // 20:02d}_{number:04d}"
        for path, text in makers[language](rng).items():
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_text(text, encoding="utf-8")
        (folder / "README.md").write_text(f"Source: generated (tests/bench/real_programs.py, seed {seed})\n"
                                          f"Original file: {number}\n", encoding="utf-8")
        loaded = load_program(folder, language, [], require_ground_truth=False)
        assert loaded is not None, folder
        run = trace_instance(loaded[0])
        statuses[run.status] = statuses.get(run.status, 0) + 1
        (folder / "callgraph.json").write_text(json.dumps(run.graph.to_dict(), indent=2), encoding="utf-8")
    return statuses
