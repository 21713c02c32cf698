"""Scoring by the paper's rules: the answer parser, rule sets, normalisation, the metric, scores over a
workspace (`scores`), statistics, tables and plot data, and the replay check of a trace against the truth."""
