"""Typed errors. The CLI turns them into a one-line message and an exit code."""


class TraceEvalError(Exception):
    """Base class: `str(error)` is a one-line message naming the file and the problem."""


class DatasetError(TraceEvalError):
    """A dataset, program folder or split file cannot be read."""


class ResultsError(TraceEvalError):
    """A results file (released JSON or JSONL) cannot be read."""


class WorkspaceError(TraceEvalError):
    """The workspace database cannot be opened or is in an unknown state."""


class TracerError(TraceEvalError):
    """A tracer cannot run (missing toolchain, bad options)."""


class UsageError(TraceEvalError):
    """An option value that parses but makes no sense (unknown mode, language, model...)."""


class EndpointError(TraceEvalError):
    """A model endpoint cannot be used (refused key, unknown model, unreachable, unsafe credentials file)."""


class AuditError(TraceEvalError):
    """An audit that cannot be created, found, or merged as asked."""


class BuildError(TraceEvalError):
    """A repository, build option or build output folder that cannot be used to build instances."""


class ReleaseError(TraceEvalError):
    """The user's TraceEval release checkout cannot be used (not found, unreadable templates, bad archive)."""


class UnconfirmedRelease(ReleaseError):
    """A release found beside the dataset that the user has not confirmed (`core.release.checkout.usable_release`):
    the message says where it is, its scripts' sha256 and how to confirm it on the command line."""

    def __init__(self, message: str, checkout: str, sha256: str) -> None:
        super().__init__(message)
        self.checkout, self.sha256 = checkout, sha256


class MissingExtraError(TraceEvalError):
    """An optional dependency is not installed; the message names the extra that brings it (`core.extras`)."""


class Cancelled(TraceEvalError):
    """The work stopped because its cancel event was set; nothing of it was kept."""
