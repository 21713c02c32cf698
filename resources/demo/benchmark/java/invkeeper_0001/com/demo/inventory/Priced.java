package com.demo.inventory;

public interface Priced {
    double unitPrice();

    default double priceWithTax(double rate) {
        return Money.round(unitPrice() * (1 + rate));
    }
}
