"""Length units and their conversion."""

FACTORS = {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0}


def factor(unit):
    if unit not in FACTORS:
        raise ValueError(f"unknown unit: {unit}")
    return FACTORS[unit]


def convert(value, source, target):
    """`value` in `source` units, expressed in `target` units."""
    return value * factor(source) / factor(target)


def format_length(value, unit):
    return f"{round(value, 3)} {unit}"
