"""The metrics tab and plots, and the job that scores the workspace for them."""
