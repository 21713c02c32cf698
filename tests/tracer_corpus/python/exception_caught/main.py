class ValidationError(Exception):
    pass


def check(value):
    if value < 0:
        raise ValidationError(describe(value))
    return value


def describe(value):
    return f"negative: {value}"


def safe(value):
    try:
        return check(value)
    except ValidationError as error:
        return report(error)


def report(error):
    return str(error)


print(safe(1), safe(-1))
