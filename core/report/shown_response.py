"""The part of a long model answer a person is shown: whole lines from the start, a long line cut after its last whole
callee that fits, and a line saying what is left out; at most SHOWN_PROBLEMS of its parse problems, and how many
more. The window's Answer tab (`traceeval_gui.widgets.answer_text`) and `traceeval answer` and `diff` show this part;
scores read all of the answer.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SHOWN_LINES = 5_000  # lines of a response shown
SHOWN_LINE_CHARS = 10_000  # characters of one line shown (cut after a callee)
SHOWN_CHARS = 200_000  # characters shown in all
SHOWN_PROBLEMS = 40  # parse problems listed (every one is stored and counted)


@dataclass(frozen=True)
class ShownResponse:
    """The part of a raw response the view holds: whole lines from the start, long ones cut short."""

    text: str
    total_chars: int
    omitted_lines: int = 0  # lines left out at the end
    clipped_lines: int = 0  # lines shown only in part

    @property
    def omitted_chars(self) -> int:
        return self.total_chars - len(self.text)

    def summary(self) -> str:
        """`Showing part of a long response (…): … not shown; scores read all of it`, or "" when it is whole."""
        if not self.omitted_chars:
            return ""
        parts = []
        if self.clipped_lines:
            parts.append(f"{self.clipped_lines:,} line{'s' if self.clipped_lines > 1 else ''} cut short "
                         f"at {SHOWN_LINE_CHARS:,} characters")
        if self.omitted_lines:
            parts.append(f"the last {self.omitted_lines:,} line{'s' if self.omitted_lines > 1 else ''} left out")
        return (f"Showing part of a long response ({self.total_chars:,} characters): {'; '.join(parts)}; "
                f"… and {self.omitted_chars:,} more characters not shown; scores read all of it")


def shown_problems(problems: Sequence[str]) -> list[str]:
    """The first SHOWN_PROBLEMS problems, and a line counting the rest."""
    more = len(problems) - SHOWN_PROBLEMS
    return [*problems[:SHOWN_PROBLEMS], *([f"… and {more:,} more"] if more > 0 else [])]


def shown_response(raw: str) -> ShownResponse:
    """The bounded part of `raw` to show, split into lines as the paper's parser splits them (so line numbers
    and kinds stay those of the whole response); a long line is cut after its last whole callee that fits."""
    rows = raw.split("\n", SHOWN_LINES)
    rest = rows.pop() if len(rows) > SHOWN_LINES else None
    omitted = rest.count("\n") + 1 if rest is not None else 0
    kept: list[str] = []
    size = clipped = 0
    for index, row in enumerate(rows):
        short = row
        if len(row) > SHOWN_LINE_CHARS:
            cut = row.rfind(",", 0, SHOWN_LINE_CHARS)
            short = row[:cut if cut > 0 else SHOWN_LINE_CHARS]
        if kept and size + len(short) > SHOWN_CHARS:
            omitted += len(rows) - index
            break
        kept.append(short)
        size += len(short) + 1
        clipped += short is not row
    return ShownResponse("\n".join(kept), len(raw), omitted, clipped)
