"""The golden scoring figures that pin `core.scoring.scores.SCORER_VERSION`.

Cached scores are keyed by SCORER_VERSION, so any change to what the scorer outputs must come with a
new version. These figures are that output on fixed inputs: the demo dataset scored under every rule
set and mode combination (TP/FP/FN per model and language), and digests of how every rule set parses
the parity answers and normalises the parity names under every mode combination.

After a deliberate change to scoring, bump SCORER_VERSION in core/scoring/scores.py, then regenerate with
    python -m tests.scorer_golden
"""
from __future__ import annotations

import hashlib
import itertools
import json
import sys
import tempfile
from pathlib import Path

from core.dataset.indexing import open_dataset
from core.scoring.answers import parse_answer
from core.scoring.normalise import MODES, normalise_name
from core.scoring.rules import RULE_SETS
from core.scoring.scores import SCORER_VERSION, score_table
from resources import DEMO_DATASET

GOLDEN = Path(__file__).parent / "golden" / "scores.json"
PARITY = Path(__file__).parent / "parity"
REGENERATE = "python -m tests.scorer_golden"
MODE_COMBINATIONS = [frozenset(c) for size in range(len(MODES) + 1) for c in itertools.combinations(MODES, size)]


def modes_label(modes: frozenset[str]) -> str:
    return "+".join(m for m in MODES if m in modes) or "none"


def demo_counts() -> dict[str, dict]:
    """"rules|modes" -> model -> language -> [tp, fp, fn] on the demo dataset, every program."""
    figures: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as folder:
        ws, _ = open_dataset(DEMO_DATASET, Path(folder) / "golden.sqlite")
        try:
            for rules, modes in itertools.product(RULE_SETS, MODE_COMBINATIONS):
                table = score_table(ws, modes=modes, rules=rules)
                figures[f"{rules}|{modes_label(modes)}"] = {
                    row.model: {language: [result.counts.tp, result.counts.fp, result.counts.fn]
                                for language, result in row.languages.items()}
                    for row in table.rows}
        finally:
            ws.close()
    return figures


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def _vectors(name: str) -> list[dict]:
    return json.loads((PARITY / f"{name}.json").read_text(encoding="utf-8"))["vectors"]


def parse_digests() -> dict[str, str]:
    """Rule set -> digest of the graphs and problems it reads from every parity answer."""
    vectors = _vectors("parse")
    readings = {}
    for rules in RULE_SETS:
        parsed = [parse_answer(v["response"], v["keys"], rules) for v in vectors]
        readings[rules] = _digest([[list(p.graph.to_dict().items()), list(p.problems)] for p in parsed])
    return readings


def normalise_digests() -> dict[str, str]:
    """Rule set -> digest of every parity name normalised under every mode combination."""
    vectors = _vectors("normalise")
    return {rules: _digest([[normalise_name(v["name"], v["language"], modes, rules) for modes in MODE_COMBINATIONS]
                            for v in vectors])
            for rules in RULE_SETS}


def golden_figures() -> dict:
    return {"demo_counts": demo_counts(), "parse": parse_digests(), "normalise": normalise_digests()}


def _one_table_per_line(stored: dict) -> str:
    """JSON with each scored table on one line, so a diff shows which rule set and modes changed."""
    tables = stored.pop("demo_counts")
    text = json.dumps(stored, indent=1, sort_keys=True)
    lines = ",\n".join(f"  {json.dumps(key)}: {json.dumps(tables[key], sort_keys=True)}" for key in sorted(tables))
    return text[:-2] + f',\n "demo_counts": {{\n{lines}\n }}\n}}\n'


def main() -> int:
    stored = {"about": __doc__.strip().splitlines()[0], "regenerate": REGENERATE, "scorer_version": SCORER_VERSION,
              **golden_figures()}
    GOLDEN.write_text(_one_table_per_line(stored), encoding="utf-8")
    print(f"wrote {GOLDEN} for scorer version {SCORER_VERSION}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
