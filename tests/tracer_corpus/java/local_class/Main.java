public class Main {
    static int run(int k) {
        class Scaler {
            int scale(int v) {
                return v * k;
            }
        }
        return new Scaler().scale(3) + helper();
    }

    static int helper() {
        return 1;
    }

    public static void main(String[] args) {
        System.out.println(run(2));
    }
}
