public class Shared {
    static int twice(int n) {
        return 2 * n;
    }

    static int thrice(int n) {
        return 3 * n;
    }
}
