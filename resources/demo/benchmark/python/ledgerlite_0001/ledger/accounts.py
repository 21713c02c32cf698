"""Account types."""


class Account:
    kind = "checking"

    def __init__(self, owner, balance=0.0):
        self.owner = owner
        self.balance = balance
        self.history = []

    def deposit(self, amount):
        self._record("deposit", amount)
        self.balance += amount

    def withdraw(self, amount):
        if amount > self.available():
            raise ValueError(f"{self.owner}: insufficient funds")
        self._record("withdraw", amount)
        self.balance -= amount

    def available(self):
        return self.balance

    def interest(self):
        return 0.0

    def _record(self, kind, amount):
        self.history.append((kind, round(amount, 2)))

    @staticmethod
    def validate_owner(name):
        return name.isalpha() and name.islower()


class SavingsAccount(Account):
    kind = "savings"
    MIN_BALANCE = 25.0

    def __init__(self, owner, balance=0.0, rate=0.01):
        super().__init__(owner, balance)
        self.rate = rate

    def available(self):
        return self.balance - self.MIN_BALANCE

    def interest(self):
        return round(self.balance * self.rate, 2)
