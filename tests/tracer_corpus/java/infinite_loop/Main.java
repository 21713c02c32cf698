public class Main {
    static void start() {
    }

    static void tick() {
    }

    public static void main(String[] args) {
        start();
        while (true) {
            tick();
        }
    }
}
