"""The tracer console: tracing the selected program in the background and showing its runs."""
