def up(x):
    return x + 1


def down(x):
    return x - 1


def compute():
    inc, dec = (lambda x: up(x)), (lambda x: down(x))
    return inc(dec(5))


print(compute())
