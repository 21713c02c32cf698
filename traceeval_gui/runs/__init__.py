"""Model runs from the window: the Model menu, the Run Model dialog with its estimate, the release field,
and the run and dry-run jobs."""
