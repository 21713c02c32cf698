public class Worker {
    static int work(int n) {
        return Shared.thrice(n) + Shared.twice(n);
    }

    static void report(int value) {
        System.out.println(value);
    }

    public static void main(String[] args) {
        report(work(Integer.parseInt(args[0])));
    }
}
