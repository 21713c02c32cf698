class Config {
    static final int SIZE;

    static {
        SIZE = compute();
    }

    static int compute() {
        return 4;
    }

    static int size() {
        return SIZE;
    }
}

public class Main {
    public static void main(String[] args) {
        System.out.println(Config.size());
    }
}
