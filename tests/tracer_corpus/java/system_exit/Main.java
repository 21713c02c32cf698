public class Main {
    static void prepare() {
    }

    static void finish() {
        System.exit(3);
    }

    static void unreachable() {
    }

    public static void main(String[] args) {
        prepare();
        finish();
        unreachable();
    }
}
