package com.demo.shapes;

public interface Shape {
    double area();

    double perimeter();

    String name();

    default String describe() {
        return String.format("%-9s area=%6.2f perimeter=%6.2f", name(), area(), perimeter());
    }
}
