"""ledgerlite loan report: monthly payment and the first rows of an amortization table."""


def logged(label):
    def decorate(func):
        def wrapper(*args):
            result = func(*args)
            print(f"[{label}] {func.__name__}{args} -> {result}")
            return result

        return wrapper

    return decorate


def monthly_rate(annual_pct):
    return annual_pct / 100 / 12


@logged("payment")
def payment(principal, annual_pct, months):
    r = monthly_rate(annual_pct)
    if r == 0:
        return round(principal / months, 2)
    return round(principal * r / (1 - (1 + r) ** -months), 2)


def schedule(principal, annual_pct, months, pay):
    r = monthly_rate(annual_pct)

    def step(balance, month):
        if month > months or balance <= 0:
            return []
        interest = round(balance * r, 2)
        principal_part = min(pay - interest, balance)
        row = (month, interest, round(principal_part, 2))
        return [row] + step(round(balance - principal_part, 2), month + 1)

    return step(principal, 1)


def total_interest(rows):
    return round(sum(map(lambda row: row[1], rows)), 2)


def fmt_row(row):
    month, interest, princ = row
    return f"{month:>3} {interest:>8.2f} {princ:>9.2f}"


def refinance(principal, new_pct):
    # Kept for a later feature; not called in this run.
    return payment(principal, new_pct, 24)


def report(principal, annual_pct, months):
    pay = payment(principal, annual_pct, months)
    rows = schedule(principal, annual_pct, months, pay)
    for line in map(fmt_row, rows[:3]):
        print(line)
    print("...", len(rows), "payments, total interest", total_interest(rows))


if __name__ == "__main__":
    report(1200.0, 6.0, 12)
