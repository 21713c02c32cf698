enum Op {
    ADD("+") {
        int apply(int a, int b) {
            return a + b;
        }
    },
    MUL("*") {
        int apply(int a, int b) {
            return a * b;
        }
    };

    private final String symbol;

    Op(String symbol) {
        this.symbol = symbol;
    }

    abstract int apply(int a, int b);

    String symbol() {
        return symbol;
    }
}

public class Main {
    public static void main(String[] args) {
        for (Op op : Op.values()) {
            System.out.println(op.symbol() + op.apply(2, 3));
        }
    }
}
