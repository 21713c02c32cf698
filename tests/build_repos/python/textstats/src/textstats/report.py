"""Plain-text reports."""
from textstats import counts
from textstats.counts import Vocabulary
from textstats.tokenize_text import sentences


def format_table(rows):
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label.ljust(width)}  {value}" for label, value in rows)


def build_report(text):
    rows = [("sentences", len(sentences(text))),
            ("avg length", round(counts.average_sentence_length(text), 2))]
    rows += counts.top_words(text)
    return format_table(rows)


def compare(first, second):
    shared = set(counts.word_counts(first)) & set(counts.word_counts(second))
    richness = (round(Vocabulary(first).richness(), 3), round(Vocabulary(second).richness(), 3))
    return {"shared": sorted(shared), "richness": richness}
