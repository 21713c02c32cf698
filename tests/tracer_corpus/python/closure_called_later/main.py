def make_multiplier(k):
    def multiply(x):
        return scale(x, k)
    return multiply


def scale(x, k):
    return x * k


def main():
    triple = make_multiplier(3)
    return triple(5)


print(main())
