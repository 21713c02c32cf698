public class Main {
    static void step1() {
        step2();
    }

    static void step2() {
        throw new IllegalStateException("broken");
    }

    static void never() {
    }

    public static void main(String[] args) {
        step1();
        never();
    }
}
