"""An optional price table: what a request cost, from its token counts.

JSON `{"<model id or fnmatch pattern>": {"input_per_mtok": 3.0, "output_per_mtok": 15.0}}`
(US dollars per million tokens). An exact model id wins; otherwise the first matching pattern
in file order.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from core.errors import UsageError

FIELDS = ("input_per_mtok", "output_per_mtok")


@dataclass(frozen=True)
class Price:
    input_per_mtok: float
    output_per_mtok: float


@dataclass(frozen=True)
class PriceTable:
    entries: dict[str, Price]

    @classmethod
    def load(cls, path: str | Path) -> PriceTable:
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as error:
            raise UsageError(f"{path}: cannot read price table: {error}") from None
        except json.JSONDecodeError as error:
            raise UsageError(f"{path}: not valid JSON ({error.msg}, line {error.lineno})") from None
        if not isinstance(data, dict):
            raise UsageError(f'{path}: expected {{"<model>": {{"input_per_mtok": ..., "output_per_mtok": ...}}}}')
        entries = {}
        for model, entry in data.items():
            if not isinstance(entry, dict) or any(not _price(entry.get(name)) for name in FIELDS):
                raise UsageError(f"{path}: entry {model!r} needs numbers >= 0 for {' and '.join(FIELDS)}")
            entries[model] = Price(float(entry["input_per_mtok"]), float(entry["output_per_mtok"]))
        return cls(entries)

    def price(self, model: str) -> Price | None:
        if model in self.entries:
            return self.entries[model]
        return next((price for pattern, price in self.entries.items() if fnmatchcase(model, pattern)), None)

    def cost(self, model: str, tokens_in: int | None, tokens_out: int | None) -> float | None:
        """US dollars for one request; None when the model has no price or a token count is unknown."""
        price = self.price(model)
        if price is None or tokens_in is None or tokens_out is None:
            return None
        return (tokens_in * price.input_per_mtok + tokens_out * price.output_per_mtok) / 1_000_000


def _price(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0
