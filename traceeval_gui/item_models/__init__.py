"""Qt item models and view-models that adapt core data for the views (never mutating it). Below every view:
they take colours and words from `traceeval_gui.theme` and never import a view."""
