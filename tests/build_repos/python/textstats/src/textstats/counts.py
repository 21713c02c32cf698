"""Counting words."""
from collections import Counter

from .tokenize_text import sentences, words

STOP_WORDS = frozenset({"a", "an", "and", "the", "of", "to", "is", "in", "it"})


def word_counts(text, skip_stop_words=True):
    counts = Counter(words(text))
    if skip_stop_words:
        for word in STOP_WORDS:
            counts.pop(word, None)
    return counts


def top_words(text, n=3):
    return word_counts(text).most_common(n)


def average_sentence_length(text):
    found = sentences(text)
    if not found:
        return 0.0
    return sum(len(words(sentence)) for sentence in found) / len(found)


class Vocabulary:
    """The distinct words of a text and how varied they are."""

    def __init__(self, text):
        self.counts = word_counts(text, skip_stop_words=False)
        self.sentence_count = len(sentences(text))

    def richness(self):
        total = sum(self.counts.values())
        return len(self.counts) / total if total else 0.0
