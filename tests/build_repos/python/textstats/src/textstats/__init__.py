"""textstats: word and sentence statistics for plain text."""

__version__ = "0.3.1"
