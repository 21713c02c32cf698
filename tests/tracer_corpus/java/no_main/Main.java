public class Main {
    static int helper() {
        return 1;
    }
}
