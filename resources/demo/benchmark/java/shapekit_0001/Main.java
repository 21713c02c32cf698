import com.demo.shapes.AreaComparator;
import com.demo.shapes.Circle;
import com.demo.shapes.Rectangle;
import com.demo.shapes.Shape;
import com.demo.shapes.Square;

import java.util.ArrayList;
import java.util.List;

public class Main {
    static Shape parse(String spec) {
        String[] parts = spec.split(" ");
        switch (parts[0]) {
            case "circle":
                return new Circle(Double.parseDouble(parts[1]));
            case "rect":
                return new Rectangle(Double.parseDouble(parts[1]), Double.parseDouble(parts[2]));
            case "square":
                return new Square(Double.parseDouble(parts[1]));
            default:
                throw new IllegalArgumentException("unknown shape: " + parts[0]);
        }
    }

    static double totalArea(Shape[] shapes) {
        double sum = 0;
        for (Shape s : shapes) {
            sum += s.area();
        }
        return sum;
    }

    static int gcd(int a, int b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    static String ratio(int a, int b) {
        int g = gcd(a, b);
        return (a / g) + ":" + (b / g);
    }

    static void printAll(Shape[] shapes) {
        // Not called in this run.
        for (Shape s : shapes) {
            System.out.println(s.describe());
        }
    }

    public static void main(String[] args) {
        String[] specs = {"rect 3 4", "circle 1.5", "square 2", "rect 6 1"};
        List<Shape> shapes = new ArrayList<>();
        for (String spec : specs) {
            shapes.add(parse(spec));
        }
        AreaComparator byArea = new AreaComparator();
        shapes.sort(byArea);
        shapes.forEach(s -> System.out.println(s.describe()));
        Shape[] asArray = shapes.toArray(new Shape[0]);
        System.out.printf("total area %.2f after %d comparisons%n", totalArea(asArray), byArea.getComparisons());
        System.out.println("aspect of 6x4 = " + ratio(6, 4));
    }
}
