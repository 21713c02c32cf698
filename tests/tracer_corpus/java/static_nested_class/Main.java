public class Main {
    static class Counter {
        private int n;

        Counter(int start) {
            n = start;
        }

        int next() {
            return ++n;
        }
    }

    public static void main(String[] args) {
        Counter c = new Counter(5);
        c.next();
        System.out.println(c.next());
    }
}
