"""Datasets and the workspace: the released layout and reading a program (`layout`), splits, entry
points, validation, the bundled demo, and the SQLite workspace with its index of every program."""
