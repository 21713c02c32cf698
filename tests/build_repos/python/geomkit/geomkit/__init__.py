"""geomkit: small plane-geometry helpers."""
from geomkit.measure import summary, total_area
from geomkit.shapes import Circle, Rectangle, Shape

__all__ = ["Circle", "Rectangle", "Shape", "summary", "total_area"]
__version__ = "0.4.0"
