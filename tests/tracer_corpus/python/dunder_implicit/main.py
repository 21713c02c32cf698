class Bag:
    def __init__(self, items):
        self.items = list(items)

    def __len__(self):
        return len(self.items)

    def __eq__(self, other):
        return self.items == other.items

    def __iter__(self):
        return BagIterator(self.items)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, x):
        return x in self.items


class BagIterator:
    def __init__(self, items):
        self.items = items
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= len(self.items):
            raise StopIteration
        self.i += 1
        return self.items[self.i - 1]


def main():
    a, b = Bag([1, 2]), Bag([1, 2])
    same = a == b
    size = len(a)
    total = 0
    for x in a:
        total += x
    with a as bag:
        found = bag(2)
    return same, size, total, found


print(main())
