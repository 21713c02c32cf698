public class Main {
    static class Point {
        final int x;
        final int y;

        Point() {
            this(0);
        }

        Point(int x) {
            this(x, 0);
        }

        Point(int x, int y) {
            this.x = x;
            this.y = y;
            check();
        }

        void check() {
        }
    }

    public static void main(String[] args) {
        new Point();
        new Point(1, 2);
    }
}
