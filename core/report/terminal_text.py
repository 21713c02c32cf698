"""Text from programs, models and files made safe for a terminal.

Model names, answers, file names and a traced program's output can hold terminal control sequences:
`ESC [ ... ` recolours or clears the screen, OSC 52 writes the clipboard, `\\r` and backspace overwrite
what was printed, C1 controls act like ESC, and bidirectional overrides reorder what is shown. Every
such character is shown as its escape (`\\u001b`) instead; tabs and line breaks stay, and so does the
`\\r` of a `\\r\\n` line end. The escape is also a valid JSON string escape, so JSON output stays JSON.

`SafeTerminalStream` applies this to everything written to a stream; the CLI wraps stdout and stderr
with it, and its own progress line writes its `\\r` through `raw_stream`. Files written with `-o` are
data and keep their exact content.
"""
from __future__ import annotations

import io
import re

# C0 controls but tab and newline, DEL, C1 controls, lone surrogates, bidirectional embeddings,
# overrides and isolates, and line/paragraph separators.
_UNSAFE = re.compile("\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff"
                     "\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """`text` with every character that could steer a terminal written as its `\\uXXXX` escape."""
    return _UNSAFE.sub(_escape, text)


def _escape(match: re.Match) -> str:
    return f"\\u{ord(match.group()):04x}"


class SafeTerminalStream(io.TextIOBase):
    """A text stream that writes `visible(text)` to `raw`; everything else is `raw`'s."""

    def __init__(self, raw):
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(visible(text))
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        # Python 3.13 finalises the wrapper (close, hence flush) after the stream beneath may be closed.
        if not getattr(self.raw, "closed", False):
            self.raw.flush()

    def isatty(self) -> bool:
        return self.raw.isatty()

    def fileno(self) -> int:
        return self.raw.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self):  # type: ignore[override]  # read-only in io.TextIOBase too; typeshed declares a field
        return getattr(self.raw, "encoding", "utf-8")

    @property
    def errors(self):  # type: ignore[override]  # read-only in io.TextIOBase too; typeshed declares a field
        return getattr(self.raw, "errors", "strict")

    def __getattr__(self, name):  # buffer, mode, name, ... of the stream beneath
        return getattr(self.raw, name)


def raw_stream(stream):
    """The stream beneath a `SafeTerminalStream` (for the tool's own control characters), else `stream`."""
    return stream.raw if isinstance(stream, SafeTerminalStream) else stream
