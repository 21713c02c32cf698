package com.demo.inventory;

import java.util.ArrayList;
import java.util.List;

public class Category {
    private final String name;
    private final List<Category> children;
    private final List<Item> items;

    public Category(String name) {
        this.name = name;
        this.children = new ArrayList<>();
        this.items = new ArrayList<>();
    }

    public Category child(String childName) {
        Category c = new Category(childName);
        children.add(c);
        return c;
    }

    public Category add(Item item) {
        items.add(item);
        return this;
    }

    public double totalValue() {
        return items.stream().mapToDouble(Item::stockValue).sum() + childrenValue();
    }

    private double childrenValue() {
        double sum = 0;
        for (Category c : children) {
            sum += c.totalValue();
        }
        return sum;
    }

    public void print(String indent) {
        System.out.println(indent + name + " " + Money.format(totalValue()));
        children.forEach(c -> c.print(indent + "  "));
    }

    public Item find(String sku) {
        // Not called in this run.
        for (Item item : items) {
            if (item.getSku().equals(sku)) {
                return item;
            }
        }
        for (Category c : children) {
            Item hit = c.find(sku);
            if (hit != null) {
                return hit;
            }
        }
        return null;
    }
}
