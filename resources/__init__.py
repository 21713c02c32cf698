"""Bundled data: the demo dataset (with illustrative model results), the build's harness prompt, icons and style."""
from pathlib import Path

RESOURCES_DIR = Path(__file__).resolve().parent
DEMO_DATASET = RESOURCES_DIR / "demo"
DEMO_RESULTS = DEMO_DATASET / "results"
HARNESS_PROMPT = RESOURCES_DIR / "build" / "harness_prompt.md"
