"""Headless TraceEval library: model, datasets, naming, normalisation, metrics, workspace.

Nothing here imports Qt, pyqtgraph, `tracers` or `traceeval_gui` (docs/design.md).
"""
