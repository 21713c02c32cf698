public class Main {
    private int total;

    void add(int x) {
        total += x;
        log();
    }

    void log() {
        System.out.println(total);
    }

    public static void main(String[] args) {
        Main m = new Main();
        m.add(2);
        m.add(3);
    }
}
