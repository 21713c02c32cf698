"""Attacks on the sandbox, the readers and the shared workspace, each a real program or a real file (issue #18)."""
