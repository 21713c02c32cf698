"""Splitting text into words and sentences."""
import re

WORD = re.compile(r"[A-Za-z']+")
SENTENCE_END = re.compile(r"[.!?]+")


def normalise(word):
    return word.strip("'").lower()


def words(text):
    return [normalise(word) for word in WORD.findall(text) if normalise(word)]


def sentences(text):
    return [part.strip() for part in SENTENCE_END.split(text) if part.strip()]
