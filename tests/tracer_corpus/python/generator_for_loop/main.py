def countdown(n):
    while n > 0:
        yield step(n)
        n -= 1


def step(n):
    return n * 10


def main():
    out = []
    for value in countdown(3):
        out.append(value)  # noqa: PERF402
    return out


print(main())
