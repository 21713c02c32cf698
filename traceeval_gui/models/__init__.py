"""Qt item models and view-models that adapt core data for the views (never mutating it)."""
