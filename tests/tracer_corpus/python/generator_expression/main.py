def cost(item):
    return item * 3


def total(items):
    return sum(cost(i) for i in items)


def lazy(items):
    return (cost(i) for i in items)


def consume():
    gen = lazy([1, 2])
    return list(gen)


print(total([1, 2, 3]), consume())
