def add(a, b):
    return a + b


def double(x):
    return add(x, x)


def main():
    print(double(3))
    print(add(1, 2))


main()
