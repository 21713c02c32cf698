"""Bundled data: the demo dataset (with illustrative model results), the build's harness prompt, icons and style.

The app icon is drawn in APP_ICON; ICON_THEME_DIR holds its freedesktop hicolor renders (PNG per size plus the
scalable SVG), made by packaging/make_icons.py.
"""
from pathlib import Path

RESOURCES_DIR = Path(__file__).resolve().parent
DEMO_DATASET = RESOURCES_DIR / "demo"
DEMO_RESULTS = DEMO_DATASET / "results"
HARNESS_PROMPT = RESOURCES_DIR / "build" / "harness_prompt.md"
APP_ICON = RESOURCES_DIR / "icons" / "traceeval-studio.svg"
ICON_THEME_DIR = RESOURCES_DIR / "icons" / "hicolor"
