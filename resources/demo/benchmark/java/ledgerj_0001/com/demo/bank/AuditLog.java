package com.demo.bank;

import java.util.ArrayList;
import java.util.List;

public class AuditLog implements TransactionListener {
    private final List<String> lines;

    public AuditLog() {
        this.lines = new ArrayList<>();
    }

    @Override
    public void onTransaction(String account, String kind, double amount) {
        lines.add(format(account, kind, amount));
    }

    @Override
    public boolean accepts(String kind) {
        return !kind.equals("interest");
    }

    private static String format(String account, String kind, double amount) {
        return String.format("%-5s %-9s %8.2f", account, kind, amount);
    }

    public void print() {
        lines.forEach(System.out::println);
    }
}
