"""ledgerlite: open a few accounts, post transfers and print a statement."""
import sys

sys.dont_write_bytecode = True  # keep the demo folder clean when run in place

from ledger import Account, Ledger, SavingsAccount
from ledger.book import format_amount


def open_accounts(book):
    book.add(Account("alice", 120.0))
    book.add(SavingsAccount("bob", 300.0, rate=0.02))
    book.add(Account("carol", 45.5))


def post_transactions(book):
    book.transfer("bob", "alice", 50.0)
    book.transfer("alice", "carol", 20.0)
    try:
        book.transfer("carol", "bob", 1000.0)
    except ValueError as err:
        print("rejected:", err)
    book.apply_interest()


def print_statement(book):
    for acct in book.sorted_accounts():
        print(f"{acct.owner:<6} {acct.kind:<9} {format_amount(acct.balance)}")
    print("total", format_amount(book.total()))


def close_all(book):
    # Not used by this run: closing drains every account.
    for acct in book.sorted_accounts():
        acct.withdraw(acct.balance)


def main():
    book = Ledger()
    open_accounts(book)
    post_transactions(book)
    print_statement(book)


if __name__ == "__main__":
    main()
