public class Main {
    static boolean isEven(int n) {
        return n == 0 || isOdd(n - 1);
    }

    static boolean isOdd(int n) {
        return n != 0 && isEven(n - 1);
    }

    public static void main(String[] args) {
        System.out.println(isEven(4));
    }
}
