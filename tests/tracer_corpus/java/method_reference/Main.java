import java.util.function.Function;
import java.util.function.Supplier;

public class Main {
    String greet() {
        return "hi";
    }

    static int length(String s) {
        return s.length();
    }

    void run() {
        Supplier<String> s = this::greet;
        Function<String, Integer> f = Main::length;
        System.out.println(f.apply(s.get()));
    }

    public static void main(String[] args) {
        new Main().run();
    }
}
