public class Main {
    private int base = 10;

    class Adder {
        int add(int x) {
            return base + x + offset();
        }
    }

    int offset() {
        return 1;
    }

    public static void main(String[] args) {
        Main m = new Main();
        Main.Adder a = m.new Adder();
        System.out.println(a.add(5));
    }
}
