package org.bank;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

public class Ledger {
    private final Map<String, Account> accounts = new LinkedHashMap<>();
    private final List<Transfer> journal = new ArrayList<>();

    public Account open(String id) {
        Account account = new Account(id);
        accounts.put(id, account);
        return account;
    }

    public Account find(String id) {
        Account account = accounts.get(id);
        if (account == null) {
            throw new NoSuchElementException("no account " + id);
        }
        return account;
    }

    public void post(Transfer transfer) {
        transfer.applyTo(this);
        journal.add(transfer);
    }

    public Collection<Account> accounts() {
        return accounts.values();
    }

    public long totalCents() {
        long sum = 0;
        for (Account account : accounts.values()) {
            sum += account.balance().cents;
        }
        return sum;
    }
}
