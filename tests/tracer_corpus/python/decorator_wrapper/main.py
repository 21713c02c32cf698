def logged(func):
    def wrapper(*args):
        note(func.__name__)
        return func(*args)
    return wrapper


def note(name):
    return name


@logged
def greet(who):
    return "hi " + who


def main():
    return greet("bob")


print(main())
