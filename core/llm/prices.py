"""An optional price table: what a request cost, from its token counts.

JSON `{"<model id or fnmatch pattern>": {"input_per_mtok": 3.0, "output_per_mtok": 15.0}}`
(US dollars per million tokens), or the same as TOML (a file ending in `.toml`: one table per model,
`["gpt-4o*"]` then `input_per_mtok = 2.5` and `output_per_mtok = 10.0`). An entry may add
`batch_discount`, the share taken off for batch requests (default 0.5: OpenAI's Batch API and Anthropic's
Message Batches cost half). An exact model id wins; otherwise the first matching pattern in file order.
"""
from __future__ import annotations

import json
import math
import tomllib
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from core.errors import UsageError
from core.safe_files import MAX_CONFIG_BYTES, parse_json, read_text, why_unreadable

FIELDS = ("input_per_mtok", "output_per_mtok")
BATCH_DISCOUNT = 0.5


@dataclass(frozen=True)
class Price:
    input_per_mtok: float
    output_per_mtok: float
    batch_discount: float = BATCH_DISCOUNT  # the share off for batch requests


@dataclass(frozen=True)
class PriceTable:
    entries: dict[str, Price]

    @classmethod
    def load(cls, path: str | Path) -> PriceTable:
        path = Path(path)
        try:
            text = read_text(path, MAX_CONFIG_BYTES)
        except OSError as error:
            raise UsageError(f"{path}: cannot read price table: {why_unreadable(error)}") from None
        data: object
        if path.suffix.lower() == ".toml":
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError as error:
                raise UsageError(f"{path}: not valid TOML ({error})") from None
        else:
            try:
                data = parse_json(text)
            except json.JSONDecodeError as error:
                raise UsageError(f"{path}: not valid JSON ({error.msg}, line {error.lineno})") from None
        if not isinstance(data, dict):
            raise UsageError(f'{path}: expected {{"<model>": {{"input_per_mtok": ..., "output_per_mtok": ...}}}}')
        entries = {}
        for model, entry in data.items():
            if not isinstance(entry, dict) or any(not _price(entry.get(name)) for name in FIELDS):
                raise UsageError(f"{path}: entry {model!r} needs numbers >= 0 for {' and '.join(FIELDS)}")
            discount = entry.get("batch_discount", BATCH_DISCOUNT)
            if not _price(discount) or discount > 1:
                raise UsageError(f"{path}: entry {model!r}: batch_discount must be a number from 0 to 1")
            entries[model] = Price(float(entry["input_per_mtok"]), float(entry["output_per_mtok"]), float(discount))
        return cls(entries)

    def price(self, model: str) -> Price | None:
        if model in self.entries:
            return self.entries[model]
        return next((price for pattern, price in self.entries.items() if fnmatchcase(model, pattern)), None)

    def cost(self, model: str, tokens_in: int | None, tokens_out: int | None, batch: bool = False) -> float | None:
        """US dollars for one request (`batch`: less the model's batch discount); None when the model has no price
        or a token count is unknown."""
        price = self.price(model)
        if price is None or tokens_in is None or tokens_out is None:
            return None
        cost = (tokens_in * price.input_per_mtok + tokens_out * price.output_per_mtok) / 1_000_000
        return cost * (1.0 - price.batch_discount) if batch else cost


def _price(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0
