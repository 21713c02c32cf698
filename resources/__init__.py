"""Bundled data: the demo dataset (with illustrative model results), icons and style."""
from pathlib import Path

RESOURCES_DIR = Path(__file__).resolve().parent
DEMO_DATASET = RESOURCES_DIR / "demo"
DEMO_RESULTS = DEMO_DATASET / "results"
