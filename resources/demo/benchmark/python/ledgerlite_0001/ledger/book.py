"""The ledger: a collection of accounts and the operations across them."""
from .accounts import Account


def format_amount(value):
    return f"{value:>9.2f}"


class Ledger:
    def __init__(self):
        self.accounts = {}

    def add(self, account):
        if not Account.validate_owner(account.owner):
            raise ValueError(f"bad owner name: {account.owner!r}")
        self.accounts[account.owner] = account

    def transfer(self, src, dst, amount):
        self.accounts[src].withdraw(amount)
        self.accounts[dst].deposit(amount)

    def apply_interest(self):
        for acct in self.accounts.values():
            gained = acct.interest()
            if gained:
                acct.deposit(gained)

    def total(self):
        return sum(acct.balance for acct in self.accounts.values())

    def sorted_accounts(self):
        return sorted(self.accounts.values(), key=lambda a: (-a.balance, a.owner))
