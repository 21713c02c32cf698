"""The user's own TraceEval release: finding its checkout and wording (`checkout`), unpacking its archive,
and the paper parity check that runs its scripts (`parity`, `parity_driver`)."""
