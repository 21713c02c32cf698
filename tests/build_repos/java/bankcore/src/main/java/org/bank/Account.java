package org.bank;

import java.util.ArrayList;
import java.util.List;

public class Account {
    private final String id;
    private Money balance;
    private final List<Money> history = new ArrayList<>();

    public Account(String id) {
        this.id = id;
        this.balance = Money.zero();
    }

    public String id() {
        return id;
    }

    public Money balance() {
        return balance;
    }

    public List<Money> history() {
        return history;
    }

    public void deposit(Money amount) {
        balance = balance.plus(amount);
        history.add(amount);
    }

    public void withdraw(Money amount) {
        if (amount.cents > balance.cents) {
            throw new IllegalStateException("insufficient funds in " + id);
        }
        balance = balance.minus(amount);
        history.add(amount);
    }
}
