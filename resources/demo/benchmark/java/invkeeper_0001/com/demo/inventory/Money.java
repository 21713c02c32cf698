package com.demo.inventory;

public final class Money {
    private Money() {
    }

    public static double round(double value) {
        return Math.round(value * 100.0) / 100.0;
    }

    public static String format(double value) {
        return String.format("$%.2f", value);
    }

    public static String format(int cents) {
        return format(cents / 100.0);
    }
}
