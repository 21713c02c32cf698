package com.demo.bank;

public class CheckingAccount extends Account {
    private final double overdraft;

    public CheckingAccount(String owner, double opening, double overdraft) {
        super(owner, opening);
        this.overdraft = overdraft;
    }

    @Override
    protected double available() {
        return balance + overdraft;
    }

    @Override
    public double monthEnd() {
        return balance < 0 ? -5.0 : 0.0;
    }
}
