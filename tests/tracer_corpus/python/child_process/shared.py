def double(n):
    return 2 * n


def triple(n):
    return 3 * n
