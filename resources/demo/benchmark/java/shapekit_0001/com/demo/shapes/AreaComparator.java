package com.demo.shapes;

import java.util.Comparator;

public class AreaComparator implements Comparator<Shape> {
    private int comparisons;

    public AreaComparator() {
        this.comparisons = 0;
    }

    @Override
    public int compare(Shape a, Shape b) {
        comparisons++;
        return Double.compare(a.area(), b.area());
    }

    public int getComparisons() {
        return comparisons;
    }
}
