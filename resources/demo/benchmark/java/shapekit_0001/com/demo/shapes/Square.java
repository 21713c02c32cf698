package com.demo.shapes;

public class Square extends Rectangle {
    public Square(double side) {
        super(side, side);
    }

    @Override
    public String name() {
        return "square";
    }

    @Override
    public String describe() {
        return super.describe() + " (side " + width + ")";
    }
}
