package com.demo.inventory;

public class Item implements Priced {
    private final String sku;
    private final String name;
    private final double price;
    private int quantity;

    public Item(String sku, String name, double price, int quantity) {
        this.sku = sku;
        this.name = name;
        this.price = price;
        this.quantity = quantity;
    }

    public String getSku() {
        return sku;
    }

    public String getName() {
        return name;
    }

    public int getQuantity() {
        return quantity;
    }

    @Override
    public double unitPrice() {
        return price;
    }

    public void adjust(int delta) {
        if (quantity + delta < 0) {
            throw new IllegalStateException("not enough " + name);
        }
        quantity += delta;
    }

    public double stockValue() {
        return Money.round(unitPrice() * quantity);
    }

    @Override
    public String toString() {
        return name + " x" + quantity;
    }
}
