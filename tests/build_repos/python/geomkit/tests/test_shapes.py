from geomkit.measure import make_shapes, total_area
from geomkit.shapes import Circle


def test_circle_area():
    assert round(Circle(1.0).area(), 4) == 3.1416


def test_total_area():
    assert total_area(make_shapes([("rectangle", 2.0, 3.0)])) == 6.0
