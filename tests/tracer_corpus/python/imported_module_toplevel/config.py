def load_defaults():
    return {"level": normalise("INFO")}


def normalise(text):
    return text.lower()


DEFAULTS = load_defaults()
