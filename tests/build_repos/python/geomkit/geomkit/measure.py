"""Measurements over collections of shapes."""
from geomkit.shapes import Circle, Rectangle
from geomkit.units import format_length

try:
    import yaml
except ImportError:  # optional: without PyYAML, `dump` writes plain text
    yaml = None


def total_area(shapes):
    return sum(shape.area() for shape in shapes)


def largest(shapes):
    return max(shapes, key=lambda shape: shape.area())


def summary(shapes, unit="m"):
    lines = [shape.describe() for shape in shapes]
    lines.append(f"total: {format_length(total_area(shapes), unit + '^2')}")
    lines.append(f"largest: {largest(shapes).name}")
    return "\n".join(lines)


def make_shapes(spec):
    """[("circle", 1.0), ("rectangle", 2.0, 3.0)] -> shapes."""
    shapes = []
    for kind, *sizes in spec:
        if kind == "circle":
            shapes.append(Circle(*sizes))
        else:
            shapes.append(Rectangle(*sizes))
    return shapes


def dump(shapes):
    text = summary(shapes)
    if yaml is not None:
        return yaml.safe_dump({"summary": text.splitlines()})
    return text
