def greet(name):
    return "héllo " + name


def shout(name):
    return name.upper()


def main():
    pair = {"é": (lambda: greet("zoë")), "ü": (lambda: shout("zoë"))}
    return pair["ü"]()


print(main())
