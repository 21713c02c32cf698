"""Headless TraceEval library, one package per feature: `dataset`, `symbols`, `scoring`, `llm`, `results`,
`release`, `audit`, `instances` (building new ones) and `report`. Beside them only what every package uses:
the core records (`records`, `traces`, `verdicts`), typed errors, bounded file reads, problems, user
folders, wording and the user's Python.

Nothing here imports Qt, pyqtgraph, `tracers` or `traceeval_gui` (docs/design.md).
"""
