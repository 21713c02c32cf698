package com.demo.bank;

public abstract class Account {
    private final String owner;
    protected double balance;

    protected Account(String owner, double opening) {
        this.owner = owner;
        this.balance = opening;
    }

    public String getOwner() {
        return owner;
    }

    public double getBalance() {
        return balance;
    }

    public void deposit(double amount) {
        balance += amount;
    }

    public void withdraw(double amount) {
        if (amount > available()) {
            throw new IllegalStateException(owner + " cannot withdraw " + amount);
        }
        balance -= amount;
    }

    protected abstract double available();

    public double monthEnd() {
        return 0.0;
    }
}
