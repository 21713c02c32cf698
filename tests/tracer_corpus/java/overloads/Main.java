public class Main {
    static String show(int x) {
        return "int";
    }

    static String show(String s) {
        return "str";
    }

    static String show(int x, int y) {
        return show(x) + show(y);
    }

    static String show(double d) {
        return "double";
    }

    static int pick(int a) { return 1; } static int pick(long a) { return 2; }

    public static void main(String[] args) {
        System.out.println(show(1) + show("a") + show(1, 2) + pick(5L));
    }
}
