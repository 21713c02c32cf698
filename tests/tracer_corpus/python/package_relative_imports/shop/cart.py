from .util import fmt, tax


class Cart:
    def __init__(self):
        self.items = []

    def add(self, price):
        self.items.append(price)

    def total(self):
        subtotal = sum(self.items)
        return fmt(subtotal + tax(subtotal))
