public class Main {
    static int twice(int x) {
        return add(x, x);
    }

    static int add(int a, int b) {
        return a + b;
    }

    public static void main(String[] args) {
        System.out.println(twice(3));
    }
}
