def square(x):
    return x * x


def is_even(x):
    return x % 2 == 0


def main():
    evens = list(filter(is_even, range(6)))
    return list(map(square, evens))


print(main())
