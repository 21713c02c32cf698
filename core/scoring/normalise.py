"""Name normalisation before scoring, under a rule set (`core.scoring.rules`): one entry point and its cache.

Applied the same way to ground truth and predictions; all modes are on for the paper table.
The rules themselves live in `core.scoring.normalise_paper` (the release's, the default) and
`core.scoring.normalise_studio` (this project's, opt-in). Results are cached per (rule set, language,
modes) in plain dicts that grow with the distinct names seen (a few hundred thousand for the
whole paper table), so scoring does one dict lookup per edge end.
"""
from __future__ import annotations

from collections.abc import Iterable

from core.languages import registry
from core.records import Edge
from core.scoring import normalise_paper, normalise_studio
from core.scoring.rules import DEFAULT_RULES, PAPER, RULE_SETS, STUDIO, base_rules

MODES = ("init", "nested_class", "stdlib")
_ALL_MODES = frozenset(MODES)
_CHOICES = "init, nested_class, stdlib, all or none"

_RULES = {PAPER: normalise_paper.rule, STUDIO: normalise_studio.rule}  # (language, modes) -> one name's rule


def parse_modes(text: str) -> frozenset[str]:
    """`"init,stdlib"`, `"all"` or `"none"` (case and spaces ignored, `-` read as `_`)."""
    tokens = [token.strip().lower().replace("-", "_") for token in text.split(",")]
    if tokens == ["all"]:
        return _ALL_MODES
    if tokens == ["none"]:
        return frozenset()
    for token in tokens:
        if token in ("all", "none"):
            raise ValueError(f"normalisation mode {token!r} cannot be combined with others")
        if token not in _ALL_MODES:
            raise ValueError(f"unknown normalisation mode {token!r} in {text!r} "
                             f"(choose from {_CHOICES})")
    return frozenset(tokens)


def normalise_name(name: str, language: str, modes: frozenset[str] | tuple[str, ...] = MODES,
                   rules: str = DEFAULT_RULES) -> str | None:
    """The name to score with, or None when it is dropped."""
    return _cache(language, modes, rules)[name]


def normalise_edges(edges: Iterable[Edge], language: str, modes: frozenset[str] | tuple[str, ...] = MODES,
                    rules: str = DEFAULT_RULES) -> frozenset[Edge]:
    """Normalised edges (a set, as the paper's metric uses); an edge is dropped when either end is dropped."""
    names = _cache(language, modes, rules)
    out = set()
    for caller, callee in edges:
        caller = names[caller]
        if caller is not None:
            callee = names[callee]
            if callee is not None:
                out.add((caller, callee))
    return frozenset(out)


class _Cache(dict):
    """name -> normalised name (None = dropped), computed on first lookup."""

    def __init__(self, language: str, modes: frozenset[str], rules: str) -> None:
        super().__init__()
        self.normalise = _RULES[base_rules(rules)](language, modes)

    def __missing__(self, name: str) -> str | None:
        value = self[name] = self.normalise(name)
        return value


_CACHES: dict[tuple[str, frozenset[str], str], _Cache] = {}


def _cache(language: str, modes: frozenset[str] | tuple[str, ...], rules: str) -> _Cache:
    if isinstance(modes, str):
        raise ValueError(f"modes must be a collection of mode names, not the string {modes!r}")
    key = (language, frozenset(modes), rules)
    cache = _CACHES.get(key)
    if cache is None:
        if not registry.is_known(language):
            raise ValueError(f"unknown language {language!r} (choose from {', '.join(registry.names())})")
        unknown = sorted(key[1] - _ALL_MODES)
        if unknown:
            raise ValueError(f"unknown normalisation mode {unknown[0]!r} (choose from {_CHOICES})")
        if rules not in RULE_SETS:
            raise ValueError(f"unknown rule set {rules!r} (choose from {', '.join(RULE_SETS)})")
        cache = _CACHES.setdefault(key, _Cache(*key))
    return cache
