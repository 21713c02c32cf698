package org.bank.report;

import org.bank.*;

/** A printable statement of one account. */
public final class Statement {
    private Statement() {
    }

    public static String render(Ledger ledger, String accountId) {
        Account account = ledger.find(accountId);
        StringBuilder out = new StringBuilder("Statement for " + account.id() + "\n");
        for (Money entry : account.history()) {
            out.append(line(entry)).append('\n');
        }
        out.append("Balance: ").append(account.balance());
        return out.toString();
    }

    static String line(Money entry) {
        return (entry.isNegative() ? "  debit  " : "  credit ") + entry;
    }
}
