package com.demo.inventory;

public class PerishableItem extends Item {
    private final int daysLeft;

    public PerishableItem(String sku, String name, double price, int quantity, int daysLeft) {
        super(sku, name, price, quantity);
        this.daysLeft = daysLeft;
    }

    @Override
    public double unitPrice() {
        double base = super.unitPrice();
        return daysLeft <= 2 ? Money.round(base * 0.5) : base;
    }

    @Override
    public String toString() {
        return super.toString() + " (" + daysLeft + "d left)";
    }
}
