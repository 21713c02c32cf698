"""Headless TraceEval library, one package per feature: `dataset`, `symbols`, `scoring`, `llm`, `results`,
`release`, `audit`, `instances` (building new ones) and `report`. Beside them only what every package uses:
the core records (`records`, `traces`, `verdicts`), typed errors, bounded file reads, problems, user
folders, wording and the user's Python.

Nothing here imports Qt, pyqtgraph, `tracers` or `traceeval_gui` (docs/design.md).

The names in `__all__` are the API for notebooks and scripts (docs/python-api.md): open a dataset, import results,
the paper table, per-program scores, paired statistics of two models, one program's overlay and diff, run a model,
fine-tuning sets, inspect_ai logs, audits, data frames and exports.
Each is imported when first used (PEP 562), so `import core` stays cheap: the command line imports this package
for every command, `--version` included. Tracing is `tracers.trace_program`.
"""
from __future__ import annotations

from core.lazy_names import lazy_names

# name -> the module that is its one home
_HOMES = {
    # datasets and the workspace
    "open_dataset": "core.dataset.indexing",
    "dataset_path": "core.dataset.indexing",
    "Workspace": "core.dataset.workspace",
    "load_program_folder": "core.dataset.layout",
    "Instance": "core.records",
    "CallGraph": "core.records",
    "Prediction": "core.records",
    # results files
    "import_results": "core.results.importing",
    "import_inspect_logs": "core.results.inspect_log",
    "write_released_results": "core.results.writer",
    # scoring
    "Selection": "core.scoring.scores",
    "score_table": "core.scoring.scores",
    "instance_counts": "core.scoring.scores",
    "instance_diff": "core.scoring.scores",
    "render_table": "core.scoring.tables",
    "instance_scores": "core.scoring.metrics",
    "parse_answer": "core.scoring.answers",
    "normalise_edges": "core.scoring.normalise",
    "paired_stats": "core.scoring.paired",
    # model runs
    "RunSettings": "core.llm.endpoints",
    "run_model": "core.llm.runner",
    "build_prompt": "core.llm.prompts",
    "prompt_wording": "core.release.checkout",
    "finetune_set": "core.llm.finetune",
    # one program
    "program_overlay": "core.report.program_view",
    "classify_edges": "core.report.overlay",
    "build_evidence": "core.report.evidence",
    # audits
    "create_audit": "core.audit.sampling",
    "AuditStore": "core.audit.store",
    "audit_report": "core.audit.reports",
    "report_markdown": "core.audit.export",
    # data frames (the `frames` extra) and exports (Parquet: the `parquet` extra)
    "score_frame": "core.report.frames",
    "program_frame": "core.report.frames",
    "edge_frame": "core.report.frames",
    "rows_of": "core.report.export_rows",
    "write_rows": "core.report.exports",
    "write_hf_folder": "core.report.hf_dataset",
}

__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())
