"""Read the members of a JSON object (or the items of an array) from a file a piece at a time, so that reading a
results file of any size holds one piece of its text and one record, never the whole file (issue #24: memory flat
as the dataset grows).

Values are decoded with `json`'s own decoder (`raw_decode`) under `core.safe_files`' bounds: a too long number is a
`Refused` marker, and a value nested too deep for the decoder is cut out (`cut_deep`) as `parse_json` does, so
`refusal` finds it. Between members the reading thread lets others run (the window's), as it returns to Python.
"""
from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import BinaryIO

from core.safe_files import Refused, bounded_decoder, cut_deep, grown_past

PIECE = 1 << 20  # characters read at a time (more when one value is longer)
_SPACE = re.compile(r"[ \t\n\r]*")


class JsonError(ValueError):
    """Text that is not JSON (or not the shape asked for): `line` (1-based) and `message`."""

    def __init__(self, message: str, line: int):
        super().__init__(f"line {line}: {message}")
        self.message, self.line = message, line


class NotUtf8(ValueError):
    """Bytes that are not UTF-8, near byte `offset`."""

    def __init__(self, offset: int):
        super().__init__(f"not valid UTF-8 (byte {offset})")
        self.offset = offset


class JsonPieces:
    """The JSON text of `handle` (bytes, at most `limit` of them), decoded value by value."""

    def __init__(self, handle: BinaryIO, limit: int):
        self.handle, self.limit = handle, limit
        self.utf8 = codecs.getincrementaldecoder("utf-8")()
        self.decoder = self._counting(bounded_decoder())
        self.refused = 0  # numbers made `Refused` markers so far
        self.text, self.at, self.done = "", 0, False
        self.start = 0  # where the last value taken starts (`last_text`)
        self.cut = False  # whether values nested too deep were cut out (`cut_deep`)
        self.bytes_read = self.lines_before = 0

    def peek(self) -> str:
        """The next character that is not whitespace, not taken ("" at the end of the file)."""
        while True:
            match = _SPACE.match(self.text, self.at)
            self.at = match.end() if match else self.at
            if self.at < len(self.text):
                return self.text[self.at]
            if not self.more():
                return ""

    def take(self, character: str) -> None:
        if self.peek() != character:
            raise self.error(f"expecting {character!r}", self.at)
        self.at += 1

    def value(self) -> object:
        """The next JSON value."""
        self.peek()
        while True:
            try:
                value, end = self.decoder.raw_decode(self.text, self.at)
            except json.JSONDecodeError as error:
                if self.more():  # the value may run on in the next piece
                    continue
                raise self.error(error.msg, error.pos) from None
            except RecursionError:  # nested deeper than the decoder goes: cut, as parse_json does, and go on
                self._cut_deep_rest()
                continue
            if end < len(self.text) or not self.more():  # a number at the end of a piece may go on too
                self.start, self.at = self.at, end
                return value

    def members(self) -> Iterator[str]:
        """The names of the members of the object that starts here; the caller takes each member's value
        (`value`, or `members` again) before asking for the next name."""
        self.take("{")
        if self.peek() == "}":
            self.at += 1
            return
        while True:
            if self.peek() != '"':
                raise self.error("expecting a member name in double quotes", self.at)
            name = self.value()
            self.take(":")
            yield str(name)
            following = self.peek()
            if following == "}":
                self.at += 1
                return
            if following != ",":
                raise self.error("expecting ',' or '}'", self.at)
            self.at += 1

    def items(self) -> Iterator[int]:
        """The positions (from 0) of the items of the array that starts here; the caller takes each item's value
        (`value`) before asking for the next."""
        self.take("[")
        if self.peek() == "]":
            self.at += 1
            return
        number = 0
        while True:
            yield number
            number += 1
            following = self.peek()
            if following == "]":
                self.at += 1
                return
            if following != ",":
                raise self.error("expecting ',' or ']'", self.at)
            self.at += 1

    def next_line(self) -> tuple[int, str] | None:
        """(line number, text) of the next line that is not blank (without its newline), taken; None at the end."""
        if self.at_end():
            return None
        number = self.line(self.at)
        end = self.text.find("\n", self.at)
        while end < 0 and self.more():
            end = self.text.find("\n", self.at)
        end = len(self.text) if end < 0 else end
        text, self.at = self.text[self.at:end], end
        return number, text

    def last_text(self) -> str:
        """The text of the value `value` returned last (before anything else is taken), as read, with a value
        nested too deep cut out (`cut` is then True)."""
        return self.text[self.start:self.at]

    def at_end(self) -> bool:
        return self.peek() == ""

    def line(self, position: int) -> int:
        return self.lines_before + self.text.count("\n", 0, position) + 1

    def error(self, message: str, position: int) -> JsonError:
        return JsonError(message, self.line(position))

    def more(self) -> bool:
        """Read the next piece (at least as long as what is held, so a long value costs linear time)."""
        if self.done:
            return False
        data = self.handle.read(max(PIECE, len(self.text) - self.at))
        self.bytes_read += len(data)
        if self.bytes_read > self.limit:
            raise grown_past(self.limit)
        try:
            piece = self.utf8.decode(data, final=not data)
        except UnicodeDecodeError as error:
            raise NotUtf8(self.bytes_read - len(data) + max(error.start, 0)) from None
        self.lines_before += self.text.count("\n", 0, self.at)
        self.text, self.at, self.done = self.text[self.at:] + piece, 0, not data
        return True

    def _cut_deep_rest(self) -> None:
        while self.more():
            pass
        self.text, decoder = cut_deep(self.text[self.at:])
        self.decoder, self.at, self.cut = self._counting(decoder), 0, True

    def _counting(self, decoder: json.JSONDecoder) -> json.JSONDecoder:
        """`decoder` counting in `refused` the numbers it makes `Refused` markers."""
        def counted(parse):
            def number(literal: str):
                value = parse(literal)
                if isinstance(value, Refused):
                    self.refused += 1
                return value
            return number

        return json.JSONDecoder(parse_int=counted(decoder.parse_int), parse_float=counted(decoder.parse_float))
