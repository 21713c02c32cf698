def outer(xs):
    def inner(x):
        return x * 2

    total = 0
    for x in xs:
        total += inner(x)
    return total


print(outer([1, 2]))
