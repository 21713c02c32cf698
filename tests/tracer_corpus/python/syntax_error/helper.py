def value():
    return 1

def broken(:
    pass
