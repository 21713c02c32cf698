package org.bank;

/** An amount of money in cents; immutable. */
public final class Money implements Comparable<Money> {
    final long cents;

    private Money(long cents) {
        this.cents = cents;
    }

    public static Money of(long cents) {
        return new Money(cents);
    }

    public static Money zero() {
        return of(0);
    }

    public Money plus(Money other) {
        return of(cents + other.cents);
    }

    public Money minus(Money other) {
        return of(cents - other.cents);
    }

    public boolean isNegative() {
        return cents < 0;
    }

    @Override
    public int compareTo(Money other) {
        return Long.compare(cents, other.cents);
    }

    @Override
    public String toString() {
        long units = Math.abs(cents) / 100;
        long rest = Math.abs(cents) % 100;
        return (cents < 0 ? "-" : "") + units + "." + (rest < 10 ? "0" : "") + rest;
    }
}
