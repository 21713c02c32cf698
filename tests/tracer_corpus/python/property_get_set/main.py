class Box:
    def __init__(self):
        self._size = 0

    @property
    def size(self):
        return self._size

    @size.setter
    def size(self, value):
        self._size = clamp(value)


def clamp(v):
    return max(0, min(10, v))


def main():
    b = Box()
    b.size = 42
    return b.size


print(main())
