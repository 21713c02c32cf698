import java.util.function.IntUnaryOperator;

public class Main {
    static int inc(int x) {
        return x + 1;
    }

    static int apply(IntUnaryOperator op, int v) {
        return op.applyAsInt(v);
    }

    public static void main(String[] args) {
        IntUnaryOperator f = x -> inc(x) * 2;
        System.out.println(apply(f, 3));
        Runnable r = () -> System.out.println(inc(9));
        r.run();
    }
}
