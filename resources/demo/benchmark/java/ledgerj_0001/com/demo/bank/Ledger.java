package com.demo.bank;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class Ledger {
    public static class Entry {
        final String account;
        final String kind;
        final double amount;

        Entry(String account, String kind, double amount) {
            this.account = account;
            this.kind = kind;
            this.amount = amount;
        }

        boolean isDebit() {
            return amount < 0;
        }
    }

    private final Map<String, Account> accounts;
    private final List<Entry> entries;
    private final List<TransactionListener> listeners;

    public Ledger() {
        this.accounts = new LinkedHashMap<>();
        this.entries = new ArrayList<>();
        this.listeners = new ArrayList<>();
    }

    public void open(Account account) {
        accounts.put(account.getOwner(), account);
    }

    public void addListener(TransactionListener listener) {
        listeners.add(listener);
    }

    private void record(String owner, String kind, double amount) {
        Entry entry = new Entry(owner, kind, amount);
        entries.add(entry);
        for (TransactionListener listener : listeners) {
            if (listener.accepts(kind)) {
                listener.onTransaction(owner, kind, amount);
            }
        }
    }

    public boolean transfer(String from, String to, double amount) {
        try {
            accounts.get(from).withdraw(amount);
        } catch (IllegalStateException e) {
            record(from, "rejected", amount);
            return false;
        }
        accounts.get(to).deposit(amount);
        record(from, "debit", -amount);
        record(to, "credit", amount);
        return true;
    }

    public void closeMonth() {
        accounts.values().forEach(acct -> {
            double delta = acct.monthEnd();
            if (delta != 0.0) {
                acct.deposit(delta);
                record(acct.getOwner(), delta > 0 ? "interest" : "fee", delta);
            }
        });
    }

    public long debitCount() {
        return entries.stream().filter(Entry::isDebit).count();
    }

    public static String money(double value) {
        return String.format("%.2f", value);
    }
}
