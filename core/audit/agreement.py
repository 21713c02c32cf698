"""Inter-annotator agreement on nominal labels (stdlib only).

Ratings map each item to ``{annotator: label}``; an annotator may be missing for an item. Definitions used:

- percent agreement: per item with m >= 2 ratings, agreeing ordered rater pairs / (m (m - 1)), averaged over items;
- Cohen's kappa (1960): (po - pe) / (1 - pe) on the items both annotators rated, pe from each one's own marginals;
- Fleiss' kappa (1971): on the items rated by every listed annotator, n = number of annotators per item;
- Krippendorff's alpha, nominal metric, from the coincidence matrix (Krippendorff 2011, "Computing
  Krippendorff's Alpha-Reliability"): only units with >= 2 ratings are pairable, missing ratings are fine.

Every statistic is None when undefined: no usable item, or chance agreement of 1 (every rating the same label).
Sums are done with exact fractions, so the results do not depend on item or annotator order.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

Item = TypeVar("Item", bound=Hashable)
Ratings = Mapping[Item, Mapping[str, str]]  # generic in the item (an `EdgeRef`, a question, ...)


@dataclass(frozen=True)
class Agreement:
    """All four statistics on one set of ratings; see `agreement`."""

    items: int  # items rated by at least two annotators (the ones agreement is computed on)
    annotators: tuple[str, ...]  # sorted names of annotators who rated at least one of those items
    percent: float | None
    cohen_kappa: float | None  # only when exactly two annotators
    fleiss_kappa: float | None
    krippendorff_alpha: float | None
    complete_items: int  # items rated by every annotator in `annotators` (what Fleiss uses)


def _pairable(ratings: Ratings) -> list[Mapping[str, str]]:
    return [labels for labels in ratings.values() if len(labels) >= 2]


def percent_agreement(ratings: Ratings) -> float | None:
    """Mean over items with m >= 2 ratings of agreeing ordered pairs / (m (m - 1)); None when no such item."""
    shares = []
    for labels in _pairable(ratings):
        m = len(labels)
        agreeing = sum(c * (c - 1) for c in Counter(labels.values()).values())
        shares.append(Fraction(agreeing, m * (m - 1)))
    return float(sum(shares) / len(shares)) if shares else None


def cohen_kappa(ratings: Ratings, a: str, b: str) -> float | None:
    """Cohen's kappa of annotators `a` and `b` on the items both rated.

    None when they share no item, or when chance agreement pe is 1 (both gave one and the same label throughout).
    """
    pairs = [(labels[a], labels[b]) for labels in ratings.values() if a in labels and b in labels]
    n = len(pairs)
    if not n:
        return None
    observed = sum(x == y for x, y in pairs)
    count_a, count_b = Counter(x for x, _ in pairs), Counter(y for _, y in pairs)
    chance = sum(count_a[c] * count_b[c] for c in count_a)  # pe * n^2
    if chance == n * n:
        return None
    po, pe = Fraction(observed, n), Fraction(chance, n * n)
    return float((po - pe) / (1 - pe))


def fleiss_kappa(ratings: Ratings, annotators: Sequence[str] | None = None) -> float | None:
    """Fleiss' kappa over `annotators` (default: everyone in `ratings`) on the items rated by all of them.

    Only the listed annotators' ratings count. None with fewer than two annotators, no complete item, or when
    chance agreement P_e is 1 (every rating the same label).
    """
    names = tuple(dict.fromkeys(annotators)) if annotators is not None else _names(ratings.values())
    n = len(names)
    if n < 2:
        return None
    rows = [Counter(labels[name] for name in names)
            for labels in ratings.values() if all(name in labels for name in names)]
    if not rows:
        return None
    totals: Counter[str] = Counter()
    for row in rows:
        totals.update(row)
    all_ratings = len(rows) * n
    chance_sum = sum(t * t for t in totals.values())
    if chance_sum == all_ratings * all_ratings:
        return None
    p_bar = sum(Fraction(sum(c * c for c in row.values()) - n, n * (n - 1)) for row in rows) / len(rows)
    p_e = Fraction(chance_sum, all_ratings * all_ratings)
    return float((p_bar - p_e) / (1 - p_e))


def krippendorff_alpha(ratings: Ratings) -> float | None:
    """Krippendorff's alpha, nominal metric: 1 - (n - 1) * sum_{c!=k} o_ck / sum_{c!=k} n_c n_k.

    o_ck sums, over units with m_u >= 2 ratings, (number of c-k value pairs) / (m_u - 1); n_c are its marginals
    and n the number of pairable values. None when no unit is pairable or expected disagreement D_e is 0
    (every pairable value the same).
    """
    disagreement = Fraction(0)  # sum over c != k of o_ck
    marginals: Counter[str] = Counter()
    for labels in _pairable(ratings):
        m = len(labels)
        counts = Counter(labels.values())
        marginals.update(counts)
        disagreement += Fraction(m * m - sum(c * c for c in counts.values()), m - 1)
    n = sum(marginals.values())
    expected = n * n - sum(c * c for c in marginals.values())  # sum over c != k of n_c n_k
    if expected == 0:
        return None
    return float(1 - (n - 1) * disagreement / expected)


def _names(item_labels: Iterable[Mapping[str, str]]) -> tuple[str, ...]:
    return tuple(sorted({name for labels in item_labels for name in labels}))


def agreement(ratings: Ratings[Item]) -> Agreement:
    """All statistics on the items rated by at least two annotators.

    Cohen's kappa only when exactly two annotators rated those items (else None); Fleiss' kappa over all of them.
    """
    considered = {item: labels for item, labels in ratings.items() if len(labels) >= 2}
    names = _names(considered.values())
    complete = sum(all(name in labels for name in names) for labels in considered.values()) if names else 0
    return Agreement(
        items=len(considered),
        annotators=names,
        percent=percent_agreement(considered),
        cohen_kappa=cohen_kappa(considered, *names) if len(names) == 2 else None,
        fleiss_kappa=fleiss_kappa(considered, names),
        krippendorff_alpha=krippendorff_alpha(considered),
        complete_items=complete,
    )


def agreement_by(ratings: Ratings[Item], group_of: Callable[[Item], str]) -> dict[str, Agreement]:
    """`agreement` per group of items (e.g. language or edge class), keyed by group name in sorted order.

    Every group with an item appears, even when none of its items has two ratings.
    """
    groups: dict[str, dict[Item, Mapping[str, str]]] = {}
    for item, labels in ratings.items():
        groups.setdefault(group_of(item), {})[item] = labels
    return {name: agreement(groups[name]) for name in sorted(groups)}
