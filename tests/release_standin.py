"""A stand-in for a user's checkout of the TraceEval release, written by the tests themselves.

The real release is not here (and its code never goes into this repository), so the tests write a
folder shaped like a checkout: `scripts/run_llm.py`, `scripts/compute_metrics.py` and
`scripts/normalize_edges.py` with functions of the release's names and signatures, implemented
here from docs/benchmark.md's rules, and template constants with words of our own. `write_release`
can plant differences (`plant=`) so a test can see `traceeval parity` name them.

Importing `run_llm.py` writes `IMPORTED` beside it: reading its templates must never run it (and when parity runs
it, in the sandbox, on its own copy, the file never reaches the checkout).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

RUN_LLM = r'''
"""Stand-in for the TraceEval release's run_llm.py (test fixture)."""
import json
import os
import re

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "IMPORTED"), "w") as _marker:
    _marker.write("run_llm.py was imported")

SYSTEM_PROMPT = (
    "STAND-IN system words for {language} code. "
    "They are not the paper's."
)

PYTHON_EXAMPLE = """**Stand-in Python example**:
```main.py
def f():
    g()
```
1. main.g"""

JS_EXAMPLE = """**Stand-in JavaScript example** {braces stay as they are}"""

JAVA_EXAMPLE = """**Stand-in Java example**:
1. vc.Class:target()"""

USER_PROMPT = """## STAND-IN task for {language}

{example}

**{language} Code Provided**:

{code}

**Questions**:
{questions}

**Answers**:"""

PLANT_TITLE_CASE = False


def _ext(language):
    return {"python": "py", "javascript": "js", "java": "java"}.get(language, "py")


def gather_code(benchmark_dir, language):
    code = ""
    for root, dirs, files in os.walk(benchmark_dir):
        for name in sorted(files):
            if name.endswith("." + _ext(language)):
                path = os.path.join(root, name)
                with open(path) as handle:
                    code += "```" + os.path.relpath(path, benchmark_dir) + "\n" + handle.read() + "\n```\n\n"
    return code


def _module(path):
    return path.replace("\\", ".").replace("/", ".").rsplit(".", 1)[0]


def generate_questions(gt, benchmark_dir, language):
    asked = []
    if language == "java":
        for key in gt:
            if ":" in key:
                asked.append("What are the target functions invoked by %s in the %s class?" % (key, key.split(":")[0]))
    else:
        file_map = {}
        for root, dirs, files in os.walk(benchmark_dir):
            for name in files:
                if name.endswith("." + _ext(language)):
                    relative = os.path.relpath(os.path.join(root, name), benchmark_dir)
                    file_map[_module(relative)] = relative
        init = "__init__" if language == "python" else "index"
        default = file_map.get("main", list(file_map.values())[0] if file_map else "main.py")
        for key in gt:
            found = file_map.get(key)
            if found is None:
                found = next((path for module, path in file_map.items() if key.startswith(module)), None)
            if found is None:
                found = file_map.get(key + "." + init)
            found = found or default
            if key == _module(found) or key + "." + init == _module(found):
                asked.append('What are the module-level function calls in the file "%s"?' % found)
            else:
                asked.append('What are the function calls inside the "%s" function in the file "%s"?' % (key, found))
    return ["%d. %s" % (number, text) for number, text in enumerate(asked, 1)]


def build_prompt(benchmark_dir, gt, language):
    example = {"python": PYTHON_EXAMPLE, "javascript": JS_EXAMPLE, "java": JAVA_EXAMPLE}.get(language, PYTHON_EXAMPLE)
    word = {"javascript": "JavaScript"}.get(language, language.capitalize()) if PLANT_TITLE_CASE else \
        language.capitalize()
    return [{"role": "system", "content": SYSTEM_PROMPT.format(language=word)},
            {"role": "user", "content": USER_PROMPT.format(language=word, example=example,
                                                            code=gather_code(benchmark_dir, language),
                                                            questions="\n".join(generate_questions(gt, benchmark_dir,
                                                                                                   language)))}]


def _split(answer):
    parts, depth, current = [], 0, []
    for char in answer:
        if char in "(<":
            depth += 1
        elif char in ")>":
            depth = max(0, depth - 1)
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def parse_llm_response(response, gt):
    answers = {}
    for line in response.split("\n"):
        match = re.match(r"(\d+)\.\s*(.*)", line.strip())
        if match:
            answers[int(match.group(1))] = match.group(2).strip()
    graph = {}
    for number, key in enumerate(gt, 1):
        answer = answers.get(number, "")
        if answer == "" or answer.lower() in ("none", "n/a", "no function calls", "no calls"):
            graph[key] = []
        else:
            graph[key] = [part.strip() for part in _split(answer) if part.strip()]
    return graph
'''

NORMALIZE_EDGES = r'''
"""Stand-in for the TraceEval release's normalize_edges.py (test fixture), from docs/benchmark.md's rules."""
import builtins
import re
import sys

PLANT_KEEP_NEW = False
_TYPES = {name: frozenset(dir(getattr(builtins, name))) for name in
          "list dict set tuple str bytes bytearray frozenset int float complex bool type object memoryview range "
          "slice".split()}
_BUILTINS = frozenset(dir(builtins))
_JS_GLOBALS = frozenset(%(js_globals)r)
_JS_FUNCTIONS = frozenset(%(js_functions)r)
_NODE = frozenset(%(node)r)
_JAVA_PREFIXES = tuple(%(java_prefixes)r)
_JAVA_BARE = frozenset(%(java_bare)r)


def canonicalize_init(name, language):
    if not isinstance(name, str):
        return name
    if language == "python":
        for suffix in (".__init__",) if PLANT_KEEP_NEW else (".__init__", ".__new__"):
            if name.endswith(suffix):
                return name[:-len(suffix)]
    elif language == "javascript" and name.endswith(".constructor"):
        return name[:-len(".constructor")]
    elif language == "java":
        for marker in (":<init>", ":<clinit>"):
            if marker in name:
                return name[:name.index(marker)]
    return name


def canonicalize_nested_class(name, language):
    if language != "java" or not isinstance(name, str) or ":" not in name:
        return name
    owner, rest = name.split(":", 1)
    segments = re.split(r"[.$]", owner)
    if len(segments) < 2:
        return name
    start = len(segments) - 1
    while start > 0 and segments[start - 1][:1].isupper():
        start -= 1
    if len(segments) - start < 2:
        return name
    package = ".".join(segments[:start])
    return (package + "." if package else "") + segments[-1] + ":" + rest


def is_stdlib(name, language):
    if not isinstance(name, str):
        return False
    if language == "java":
        cleaned, previous = name, None
        while cleaned != previous:
            previous, cleaned = cleaned, re.sub(r"<[^<>]*>", "", cleaned)
        head = re.split(r"[:(]", cleaned, 1)[0].rstrip(".").strip()
        return bool(head) and (head.startswith(_JAVA_PREFIXES) or ("." not in head and head in _JAVA_BARE))
    head = name.split("(", 1)[0].strip()
    if not head:
        return False
    parts = head.split(".")
    if language == "python":
        return (parts[0] == "builtins" or parts[0] in sys.stdlib_module_names or head in _BUILTINS
                or (len(parts) > 1 and parts[1] in _TYPES.get(parts[0], ())))
    return (parts[0] in _JS_GLOBALS or "prototype" in parts or head in _JS_FUNCTIONS or parts[0] in _NODE
            or parts[0].startswith("node:")
            or (len(parts) > 1 and (parts[-2] in _JS_GLOBALS or parts[-2] in _NODE or parts[-1] in _JS_GLOBALS
                                     or parts[-1] in _JS_FUNCTIONS)))


MODE_TRANSFORMS = {"init": canonicalize_init, "nested_class": canonicalize_nested_class}
MODE_PREDICATES = {"stdlib": is_stdlib}
ALL_MODES = tuple(sorted(set(MODE_TRANSFORMS) | set(MODE_PREDICATES)))


def apply_transforms(name, language, modes):
    for mode in modes:
        if mode in MODE_TRANSFORMS:
            name = MODE_TRANSFORMS[mode](name, language)
    return name


def should_drop(name, language, modes):
    return any(MODE_PREDICATES[mode](name, language) for mode in modes if mode in MODE_PREDICATES)
'''

COMPUTE_METRICS = r'''
"""Stand-in for the TraceEval release's compute_metrics.py (test fixture)."""
import json
from pathlib import Path

import normalize_edges as normalization


def edges_from_graph(graph, language=None, norm_modes=None):
    out, dropped = set(), 0
    if not isinstance(graph, dict):
        return out, 0
    for caller, callees in graph.items():
        if not isinstance(callees, list):
            continue
        caller = normalization.apply_transforms(caller, language, norm_modes)
        for callee in callees:
            callee = normalization.apply_transforms(callee, language, norm_modes)
            if normalization.should_drop(caller, language, norm_modes) or \
                    normalization.should_drop(callee, language, norm_modes):
                dropped += 1
                continue
            out.add((caller, callee))
    return out, dropped


def score_one(gt_dir, results_path, language, norm_modes=None):
    data = json.loads(Path(results_path).read_text())
    tp = fp = fn = scored = missing = gt_dropped = pred_dropped = 0
    for program_id, record in data["results"].items():
        gt_path = Path(gt_dir) / language / program_id / "callgraph.json"
        if not gt_path.is_file():
            missing += 1
            continue
        truth, dropped_truth = edges_from_graph(json.loads(gt_path.read_text()), language, norm_modes)
        predicted, dropped_predicted = edges_from_graph(record.get("prediction") or {}, language, norm_modes)
        tp += len(truth & predicted)
        fp += len(predicted - truth)
        fn += len(truth - predicted)
        scored += 1
        gt_dropped += dropped_truth
        pred_dropped += dropped_predicted
    return tp, fp, fn, scored, missing, gt_dropped, pred_dropped


def prf1(tp, fp, fn):
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)
'''


def write_release(folder: Path, *, plant: tuple[str, ...] = (), with_data: Path | None = None,
                  added: dict[str, str] | None = None) -> Path:
    """A stand-in checkout at `folder`; `plant` may hold "keep_new" (Python's `.__new__` not cut, a metric
    difference) and "title_case" (the language word "JavaScript", a prompt difference).
    `with_data`: a released-layout dataset copied to `data/` (benchmark/ and traceeval_split/).
    `added`: {script name: Python appended to it}, as a hostile release would have it (tests/security)."""
    names = json.loads((Path(__file__).parent / "parity" / "stdlib_names.json").read_text())
    scripts = folder / "scripts"
    scripts.mkdir(parents=True, exist_ok=True)
    run_llm = RUN_LLM.replace("PLANT_TITLE_CASE = False", f"PLANT_TITLE_CASE = {'title_case' in plant}")
    (scripts / "run_llm.py").write_text(run_llm.lstrip(), encoding="utf-8")
    normalize = NORMALIZE_EDGES % {"js_globals": sorted(names["javascript_globals"]),
                                   "js_functions": sorted(names["javascript_global_functions"]),
                                   "node": sorted(names["node_core_modules"]),
                                   "java_prefixes": names["java_package_prefixes"],
                                   "java_bare": sorted(names["java_bare_classes"])}
    normalize = normalize.replace("PLANT_KEEP_NEW = False", f"PLANT_KEEP_NEW = {'keep_new' in plant}")
    (scripts / "normalize_edges.py").write_text(normalize.lstrip(), encoding="utf-8")
    (scripts / "compute_metrics.py").write_text(COMPUTE_METRICS.lstrip(), encoding="utf-8")
    for name, code in (added or {}).items():
        with (scripts / name).open("a", encoding="utf-8") as script:
            script.write("\n" + code)
    if with_data is not None:
        shutil.copytree(with_data / "benchmark", folder / "data" / "benchmark")
        if (with_data / "traceeval_split").is_dir():
            shutil.copytree(with_data / "traceeval_split", folder / "data" / "traceeval_split")
    return folder
