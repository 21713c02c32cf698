"""Realistic multi-file programs shared by the `core.symbols` tests."""
