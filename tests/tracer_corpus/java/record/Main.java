record Pair(int left, int right) {
    Pair {
        if (left > right) {
            throw new IllegalArgumentException("bad");
        }
    }

    int sum() {
        return left + right;
    }

    static Pair of(int a, int b) {
        return new Pair(Math.min(a, b), Math.max(a, b));
    }
}

public class Main {
    public static void main(String[] args) {
        Pair p = Pair.of(5, 2);
        System.out.println(p.sum() + p.left());
    }
}
