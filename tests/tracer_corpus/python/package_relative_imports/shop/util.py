def fmt(amount):
    return f"${amount:.2f}"


def tax(amount):
    return amount * 0.2
