def before():
    return 1


def spin():
    while True:
        pass


before()
spin()
