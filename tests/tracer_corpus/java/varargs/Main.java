public class Main {
    static int sum(int... xs) {
        int t = 0;
        for (int x : xs) {
            t += x;
        }
        return t;
    }

    static String join(String sep, String... parts) {
        return String.join(sep, parts);
    }

    public static void main(String[] args) {
        System.out.println(sum(1, 2, 3) + sum());
        System.out.println(join(",", "a", "b"));
    }
}
