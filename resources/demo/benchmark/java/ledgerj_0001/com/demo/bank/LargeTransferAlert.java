package com.demo.bank;

public class LargeTransferAlert implements TransactionListener {
    private final double threshold;
    private int count;

    public LargeTransferAlert(double threshold) {
        this.threshold = threshold;
        this.count = 0;
    }

    @Override
    public void onTransaction(String account, String kind, double amount) {
        if (Math.abs(amount) >= threshold) {
            count++;
            System.out.println("ALERT " + account + " " + kind + " " + Ledger.money(amount));
        }
    }

    public int getCount() {
        return count;
    }
}
