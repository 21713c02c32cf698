"""Counts and lists in words, for every message and label: "1 program", "2 programs", "a, b and 3 more"."""
from __future__ import annotations


def plural(noun: str, number: int) -> str:
    """`noun` as `number` of them are called (regular English plurals, which is all this program counts)."""
    if number == 1:
        return noun
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + ("es" if noun.endswith(("s", "x", "ch", "sh")) else "s")


def count(number: int, noun: str) -> str:
    """`number` with thousands separators and `noun` agreeing with it."""
    return f"{number:,} {plural(noun, number)}"


def count_of(shown: int, total: int, noun: str) -> str:
    """"3 of 15 programs", or "15 programs" when all are shown; the noun agrees with the total."""
    return f"{shown:,} of {count(total, noun)}" if shown != total else count(total, noun)


def short_list(items, limit: int = 8) -> str:
    """The first `limit` items, comma-separated, and how many more there are: "a, b, c and 4 more"."""
    items = list(items)
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")
