import config


def main():
    return config.normalise("X"), config.DEFAULTS


print(main())
