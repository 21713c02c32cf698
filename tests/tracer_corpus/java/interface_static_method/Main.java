interface MathOps {
    static int triple(int x) {
        return helper(x) * 3;
    }

    private static int helper(int x) {
        return x;
    }
}

public class Main {
    public static void main(String[] args) {
        System.out.println(MathOps.triple(2));
    }
}
