import sys


def cleanup():
    return "bye"


def main():
    cleanup()
    sys.exit(3)


def after():
    pass


main()
after()
