"""Results files (model answers produced elsewhere): reading them, importing them into a workspace, and
writing a workspace's answers back out in the same format."""
