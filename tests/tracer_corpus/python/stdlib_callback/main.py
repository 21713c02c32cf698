import functools
import heapq


def add(a, b):
    return a + b


def priority(task):
    return task[1]


def main():
    total = functools.reduce(add, [1, 2, 3])
    first = heapq.nsmallest(2, [("a", 3), ("b", 1), ("c", 2)], key=priority)
    return total, first


print(main())
