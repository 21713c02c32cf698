public class Main {
    enum Color {
        RED, GREEN
    }

    static String name(Color c) {
        switch (c) {
            case RED:
                return red();
            default:
                return "other";
        }
    }

    static String red() {
        return "red";
    }

    public static void main(String[] args) {
        Runnable first = new Runnable() {
            public void run() {
                System.out.println(name(Color.RED));
            }
        };
        Runnable second = new Runnable() {
            public void run() {
                System.out.println(name(Color.GREEN));
            }
        };
        first.run();
        second.run();
    }
}
