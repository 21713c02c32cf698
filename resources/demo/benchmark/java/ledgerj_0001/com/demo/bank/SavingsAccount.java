package com.demo.bank;

public class SavingsAccount extends Account {
    private final double rate;

    public SavingsAccount(String owner, double opening, double rate) {
        super(owner, opening);
        this.rate = rate;
    }

    @Override
    protected double available() {
        return balance;
    }

    @Override
    public double monthEnd() {
        return Math.round(balance * rate * 100.0) / 100.0;
    }
}
