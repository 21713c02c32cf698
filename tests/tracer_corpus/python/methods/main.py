class Counter:
    def __init__(self):
        self.n = 0

    def bump(self):
        self.n += 1
        return self.check()

    def check(self):
        return self.n > 0


def main():
    c = Counter()
    c.bump()
    c.bump()


main()
