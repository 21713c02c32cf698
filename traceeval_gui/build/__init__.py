"""Building new instances from a repository: the wizard, its pages and parts, and the build jobs."""
