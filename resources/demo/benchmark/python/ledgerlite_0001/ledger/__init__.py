"""ledger: accounts and the book that moves money between them."""
from .accounts import Account, SavingsAccount
from .book import Ledger, format_amount

__all__ = ["Account", "SavingsAccount", "Ledger", "format_amount"]
