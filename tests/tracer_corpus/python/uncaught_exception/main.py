def parse(text):
    return int(text)


def load():
    first = parse("1")
    return first + parse("oops")


def never():
    return 0


load()
never()
