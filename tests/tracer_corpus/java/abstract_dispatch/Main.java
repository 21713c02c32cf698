abstract class Shape {
    abstract double area();

    String describe() {
        return "area " + area();
    }
}

class Sq extends Shape {
    final double s;

    Sq(double s) {
        this.s = s;
    }

    double area() {
        return s * s;
    }
}

class Circ extends Shape {
    final double r;

    Circ(double r) {
        this.r = r;
    }

    double area() {
        return 3 * r * r;
    }
}

public class Main {
    public static void main(String[] args) {
        Shape[] shapes = {new Sq(2), new Circ(1)};
        for (Shape x : shapes) {
            System.out.println(x.describe());
        }
    }
}
