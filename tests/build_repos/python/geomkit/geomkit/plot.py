"""Area histograms (needs numpy)."""
import numpy as np

from geomkit.measure import total_area


def area_histogram(shapes, bins=5):
    areas = np.array([shape.area() for shape in shapes])
    counts, edges = np.histogram(areas, bins=bins)
    return counts, edges


def plot_summary(shapes):
    counts, _ = area_histogram(shapes)
    return counts.tolist(), total_area(shapes)
