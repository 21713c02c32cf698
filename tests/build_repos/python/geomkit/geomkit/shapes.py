"""Shapes with an area and a perimeter."""
import math

from geomkit.units import convert, format_length


class Shape:
    def __init__(self, name, unit="m"):
        self.name = name
        self.unit = unit

    def area(self):
        raise NotImplementedError

    def perimeter(self):
        raise NotImplementedError

    def describe(self):
        area = format_length(self.area(), self.unit + "^2")
        perimeter = format_length(self.perimeter(), self.unit)
        return f"{self.name}: area {area}, perimeter {perimeter}"


class Circle(Shape):
    def __init__(self, radius, unit="m"):
        super().__init__("circle", unit)
        self.radius = radius

    def area(self):
        return math.pi * self.radius ** 2

    def perimeter(self):
        return 2 * math.pi * self.radius

    def scaled(self, unit):
        """The same circle measured in another unit."""
        return Circle(convert(self.radius, self.unit, unit), unit)


class Rectangle(Shape):
    def __init__(self, width, height, unit="m"):
        super().__init__("rectangle", unit)
        self.width = width
        self.height = height

    def area(self):
        return self.width * self.height

    def perimeter(self):
        return 2 * (self.width + self.height)
