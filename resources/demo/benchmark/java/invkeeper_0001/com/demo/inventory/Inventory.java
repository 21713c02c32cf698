package com.demo.inventory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class Inventory {
    private final Map<String, Item> bySku;
    private final Category root;

    public Inventory(Category root) {
        this.bySku = new LinkedHashMap<>();
        this.root = root;
    }

    public void stock(Category where, Item item) {
        bySku.put(item.getSku(), item);
        where.add(item);
    }

    public boolean ship(String sku, int qty) {
        Item item = bySku.get(sku);
        try {
            item.adjust(-qty);
            return true;
        } catch (IllegalStateException e) {
            System.out.println("cannot ship " + sku + ": " + e.getMessage());
            return false;
        }
    }

    public List<Item> lowStock(int threshold) {
        List<Item> low = new ArrayList<>();
        for (Item item : bySku.values()) {
            if (item.getQuantity() < threshold) {
                low.add(item);
            }
        }
        low.sort(Comparator.comparing(Item::getName));
        return low;
    }

    public String report() {
        StringBuilder sb = new StringBuilder();
        bySku.values().forEach(item -> sb.append(item)
                .append(" @ ")
                .append(Money.format(item.priceWithTax(0.2)))
                .append('\n'));
        return sb.toString();
    }
}
