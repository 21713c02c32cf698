package org.bank;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LedgerTest {
    @Test
    void transferMovesMoney() {
        Ledger ledger = new Ledger();
        ledger.open("a").deposit(Money.of(500));
        ledger.open("b");
        ledger.post(new Transfer("a", "b", Money.of(200)));
        assertEquals(300, ledger.find("a").balance().cents);
    }
}
