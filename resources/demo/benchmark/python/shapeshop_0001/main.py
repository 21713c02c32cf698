"""shapeshop: price a batch of cut shapes by material and area."""
import math
from abc import ABC, abstractmethod


def load_rates():
    return {"wood": 0.8, "steel": 2.5, "acrylic": 1.2}


class Shape(ABC):
    RATES = load_rates()

    def __init__(self, material):
        self.material = material

    @abstractmethod
    def area(self):
        ...

    def price(self):
        return round(self.area() * self.RATES[self.material], 2)

    def __lt__(self, other):
        return self.price() < other.price()

    def __str__(self):
        return f"{type(self).__name__}({self.material}, {self.price():.2f})"


class Circle(Shape):
    def __init__(self, material, radius):
        super().__init__(material)
        self.radius = radius

    def area(self):
        return math.pi * self.radius ** 2


class Rect(Shape):
    def __init__(self, material, w, h):
        super().__init__(material)
        self.w, self.h = w, h

    def area(self):
        return self.w * self.h


class Square(Rect):
    def __init__(self, material, side):
        super().__init__(material, side, side)

    def price(self):
        # Squares are cut from offcuts: 10% off.
        return round(super().price() * 0.9, 2)


def parse_spec(spec):
    kind, material, *dims = spec.split()
    numbers = [float(d) for d in dims]
    factories = {"circle": Circle, "rect": Rect, "square": Square}
    return factories[kind](material, *numbers)


def cheapest(shapes):
    return min(shapes)


def describe(shapes):
    return "\n".join(map(str, shapes))


def total(shapes):
    return sum(shape.price() for shape in shapes)


def main():
    specs = ["circle wood 1.5", "rect steel 2 3", "square acrylic 2", "rect wood 4 1"]
    shapes = [parse_spec(s) for s in specs]
    print(describe(sorted(shapes)))
    print("cheapest:", cheapest(shapes))
    print("total:", round(total(shapes), 2))
    areas = list(map(lambda s: round(s.area(), 1), shapes))
    print("areas:", areas)


if __name__ == "__main__":
    main()
