public class Main {
    static void work(boolean fail) {
        if (fail) {
            throw new IllegalStateException("boom");
        }
    }

    static void cleanup() {
    }

    static void report() {
    }

    static void guarded(boolean fail) {
        try {
            work(fail);
        } finally {
            cleanup();
        }
    }

    public static void main(String[] args) {
        guarded(false);
        try {
            guarded(true);
        } catch (IllegalStateException e) {
            report();
        }
    }
}
