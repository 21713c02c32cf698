def weight(word):
    return len(word)


def order(words):
    return sorted(words, key=lambda w: weight(w))


print(order(["ccc", "a", "bb"]))
