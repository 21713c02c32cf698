package org.bank;

public final class Transfer {
    private final String from;
    private final String to;
    private final Money amount;

    public Transfer(String from, String to, Money amount) {
        this.from = from;
        this.to = to;
        this.amount = amount;
    }

    public void applyTo(Ledger ledger) {
        Account source = ledger.find(from);
        Account target = ledger.find(to);
        source.withdraw(amount);
        target.deposit(amount);
    }

    @Override
    public String toString() {
        return from + " -> " + to + ": " + amount;
    }
}
