import sys

from shared import double, triple


def work(n):
    return triple(n) + double(n)


def report(value):
    print(value)


report(work(int(sys.argv[1])))
