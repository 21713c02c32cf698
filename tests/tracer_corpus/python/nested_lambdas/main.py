def make():
    adder = lambda a: lambda b: combine(a, b)
    return adder(1)(2)


def combine(a, b):
    return a + b


print(make())
