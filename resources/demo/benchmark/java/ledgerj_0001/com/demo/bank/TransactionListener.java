package com.demo.bank;

public interface TransactionListener {
    void onTransaction(String account, String kind, double amount);

    default boolean accepts(String kind) {
        return true;
    }
}
