import java.util.List;

sealed interface Shape permits Circle, Square {
}

record Circle(double r) implements Shape {
}

record Square(double side) implements Shape {
}

public class Main {
    // Java 21: record patterns and guards in a switch; List.getFirst/getLast (SequencedCollection).
    static double area(Shape shape) {
        return switch (shape) {
            case Circle(double r) -> circle(r);
            case Square(double side) when side > 1 -> square(side);
            case Square small -> 0;
        };
    }

    static double circle(double r) {
        return 3 * r * r;
    }

    static double square(double side) {
        return side * side;
    }

    public static void main(String[] args) {
        List<Shape> shapes = List.of(new Circle(1), new Square(2));
        System.out.println(area(shapes.getFirst()) + area(shapes.getLast()));
    }
}
