import functools


def traced(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapper


@traced
def power(base, exp):
    return base ** exp


def main():
    square = functools.partial(power, exp=2)
    return square(7)


print(main())
