class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y


class Plain:
    pass


p = Point(1, 2)
q = Plain()
print(p.x + p.y, q is not None)
