"""The user's own TraceEval release: finding its checkout and wording (`checkout`), unpacking its archive,
the releases the user confirmed (`confirmed`), and the paper parity check (`parity`; its scripts run in the
tracer sandbox: `tracers.release_sandbox`)."""
