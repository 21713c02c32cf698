"""A synthetic dataset at TraceEval scale, in the released layout, with results files for N models.

Programs are real source files (so entry points and symbols are found) whose ground truth is a
random call graph of 5-200 nodes; ids come from the real split files when given, so the per-language
split counts are the paper's. Model predictions perturb the truth the way models err: missed edges,
hallucinated calls, unqualified names, constructor spellings and standard-library calls.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

from core.languages import registry

PAPER_COUNTS = {"python": (769, 3051), "javascript": (649, 2577), "java": (711, 2826)}


def split_ids(splits_dir: Path | None, scale: float = 1.0) -> dict[str, dict[str, list[str]]]:
    """{split: {language: ids}}: the real ids when `splits_dir` exists, else made-up ones, same counts."""
    if splits_dir is not None and (splits_dir / "test_ids.json").is_file():
        real = {s: json.loads((splits_dir / f"{s}_ids.json").read_text()) for s in ("test", "train")}
        return {s: {lang: ids[:max(1, round(len(ids) * scale))] for lang, ids in langs.items()}
                for s, langs in real.items()}
    out: dict[str, dict[str, list[str]]] = {"test": {}, "train": {}}
    for language, (n_test, n_train) in PAPER_COUNTS.items():
        for split, n in (("test", n_test), ("train", n_train)):
            n = max(1, round(n * scale))
            out[split][language] = [f"{split}{language[:2]}repo{i // 7}_{i % 7 + 1:04d}" for i in range(n)]
    return out


def generate(root: Path, ids: dict[str, dict[str, list[str]]], models: int = 10, seed: int = 0,
             min_nodes: int = 5, max_nodes: int = 200) -> dict[str, list[str]]:
    """Write the dataset, split files and results files under `root`; returns {language: test ids}."""
    rng = random.Random(seed)
    bench = root / "benchmark"
    truths: dict[str, dict[str, dict[str, list[str]]]] = {lang: {} for lang in registry.names()}
    for by_language in ids.values():
        for language, program_ids in by_language.items():
            for program_id in program_ids:
                graph, files = _program(language, rng, rng.randint(min_nodes, max_nodes))
                folder = bench / language / program_id
                folder.mkdir(parents=True, exist_ok=True)
                for name, text in files.items():
                    path = folder / name
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(text)
                (folder / "callgraph.json").write_text(json.dumps(graph))
                (folder / "README.md").write_text(f"Source: https://example.org/{program_id.rpartition('_')[0]}\n"
                                                  f"Original file: src/{program_id}\n")
                truths[language][program_id] = graph
    split_folder = root / "traceeval_split"
    split_folder.mkdir(exist_ok=True)
    for split, by_language in ids.items():
        (split_folder / f"{split}_ids.json").write_text(json.dumps(by_language))
    for language in registry.names():
        assignment = {pid.rpartition("_")[0]: split for split in ids for pid in ids[split].get(language, [])}
        (split_folder / f"{language}_repo_assignment.json").write_text(json.dumps(assignment))
    results = root / "results"
    results.mkdir(exist_ok=True)
    for m in range(models):
        skill = 0.55 + 0.4 * m / max(models - 1, 1)
        for language in registry.names():
            records = {}
            for program_id in ids["test"].get(language, []):
                truth = truths[language][program_id]
                prediction = _predict(language, truth, rng, skill)
                records[program_id] = {"raw_response": _raw(truth, prediction), "prediction": prediction,
                                       "ground_truth": truth, "metrics": {}, "edge_diff": {}, "input": {}}
            meta = {"model": f"synthetic-model-{m:02d}", "language": language, "temperature": 0.0, "run_id": 0,
                    "timestamp": "2026-11-21T00:00:00Z", "num_benchmarks": len(records), "aggregate_metrics": {}}
            (results / f"synthetic-model-{m:02d}_{language}_t0.0_r0.json").write_text(
                json.dumps({"metadata": meta, "results": records}))
    return {language: ids["test"].get(language, []) for language in registry.names()}


def corrupt(root: Path, candidates: dict[str, list[str]], rng_seed: int = 1) -> list[str]:
    """Break four of the `candidates` ({language: ids}) in typical ways; returns the paths that must be
    reported (relative to `root`)."""
    rng = random.Random(rng_seed)
    broken = []
    for language, damage in (("python", "json"), ("javascript", "utf8"), ("java", "shape"), ("python", "nosource")):
        ids = sorted(candidates[language])
        folder = root / "benchmark" / language / ids.pop(rng.randrange(len(ids)))
        candidates[language] = ids
        relative = folder.relative_to(root).as_posix()
        if damage == "json":
            (folder / "callgraph.json").write_text('{"main": ["main.f_1"')
            broken.append(f"{relative}/callgraph.json")
        elif damage == "utf8":
            (folder / "main.js").write_bytes(b"function f() {}\n// \xff\xfe\n")
            broken.append(f"{relative}/main.js")
        elif damage == "shape":
            (folder / "callgraph.json").write_text('[["a", "b"]]')
            broken.append(f"{relative}/callgraph.json")
        else:
            (folder / "main.py").unlink()
            broken.append(relative)
    return broken


def _program(language: str, rng: random.Random, n: int) -> tuple[dict[str, list[str]], dict[str, str]]:
    classes = max(1, n // 8)
    names, lines = [], []
    if language == "python":
        names.append("main")
        for c in range(classes):
            lines.append(f"class Cls{c}:")
            names.append(f"main.Cls{c}.__init__")
            lines += ["    def __init__(self):", "        self.v = 0", ""]
            for k in range(3):
                names.append(f"main.Cls{c}.m{k}")
                lines += [f"    def m{k}(self, x):", "        return x + 1", ""]
        for i in range(n - len(names)):
            names.append(f"main.f{i}")
            lines += [f"def f{i}(x):", "    return x * 2", ""]
        lines += ['if __name__ == "__main__":', "    f0(1)" if "main.f0" in names else "    pass"]
        files = {"main.py": "\n".join(lines) + "\n"}
    elif language == "javascript":
        names.append("main")
        for c in range(classes):
            names.append(f"main.Cls{c}.constructor")
            lines += [f"class Cls{c} {{", "  constructor() { this.v = 0; }"]
            for k in range(3):
                names.append(f"main.Cls{c}.m{k}")
                lines.append(f"  m{k}(x) {{ return x + 1; }}")
            lines += ["}", ""]
        for i in range(n - len(names)):
            names.append(f"main.f{i}")
            lines.append(f"function f{i}(x) {{ return x * 2; }}")
        files = {"main.js": "\n".join(lines) + "\n"}
    else:
        body = []
        names.append("app.Main:main(java.lang.String[])")
        for c in range(classes):
            names.append(f"app.Cls{c}:<init>()")
            body += [f"class Cls{c} {{", f"    Cls{c}() {{ }}"]
            for k in range(3):
                names.append(f"app.Cls{c}:m{k}(int)")
                body.append(f"    int m{k}(int x) {{ return x + 1; }}")
            body += ["}", ""]
        statics = []
        for i in range(n - len(names)):
            names.append(f"app.Main:f{i}(int,java.lang.String)")
            statics.append(f"    static int f{i}(int x, String s) {{ return x * 2; }}")
        lines = ["package app;", "", "public class Main {", "    public static void main(String[] args) { }",
                 *statics, "}", "", *body]
        files = {"app/Main.java": "\n".join(lines) + "\n"}
    graph: dict[str, list[str]] = {name: [] for name in names}
    for caller in names:
        if rng.random() < 0.6:
            callees = rng.sample(names, min(len(names), rng.randint(1, 4)))
            keep_self = language == "java"
            graph[caller] = [c for c in callees if keep_self or c != caller]
    return graph, files


def _predict(language: str, truth: dict[str, list[str]], rng: random.Random, skill: float) -> dict[str, list[str]]:
    keys = list(truth)
    stdlib = {"python": "print", "javascript": "console.log", "java": "java.util.List:add(java.lang.Object)"}[language]
    prediction: dict[str, list[str]] = {}
    for caller, callees in truth.items():
        out = []
        for callee in callees:
            if rng.random() > skill:
                continue  # missed
            if rng.random() < 0.05:
                callee = callee.rsplit(".", 1)[-1]  # unqualified
            elif rng.random() < 0.1:
                callee = callee.replace(".__init__", "").replace(".constructor", "")  # constructor spelling
            out.append(callee)
        if rng.random() < (1 - skill) * 0.8:
            out.append(rng.choice(keys))  # hallucinated
        if rng.random() < 0.1:
            out.append(stdlib)
        prediction[caller] = out
    return prediction


def _raw(truth: dict[str, list[str]], prediction: dict[str, list[str]]) -> str:
    return "\n".join(f"{i}. {', '.join(prediction.get(key, [])) or 'none'}" for i, key in enumerate(truth, 1))
