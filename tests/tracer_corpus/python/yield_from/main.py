def inner():
    yield leaf(1)
    yield leaf(2)


def leaf(x):
    return x


def outer():
    yield 0
    yield from inner()


print(list(outer()))
