def f(x):
    return x + 1


def g(x):
    return x * 2


def h(x):
    return -x


def main():
    a = [f(x) for x in range(3)]
    b = {x: g(x) for x in range(3)}
    c = {h(x) for x in range(3)}
    return a, b, c


print(main())
top = [f(i) for i in range(2)]
