"""The `traceeval` command line: the parser and dispatch (`main`), one module per command group, and the
generated reference. argparse and printing only; it never imports Qt."""
