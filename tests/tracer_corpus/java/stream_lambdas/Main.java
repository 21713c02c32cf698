import java.util.List;
import java.util.stream.Collectors;

public class Main {
    static boolean keep(int x) {
        return x % 2 == 0;
    }

    static int square(int x) {
        return x * x;
    }

    static List<Integer> process(List<Integer> xs) {
        return xs.stream().filter(x -> keep(x)).map(Main::square).collect(Collectors.toList());
    }

    public static void main(String[] args) {
        System.out.println(process(List.of(1, 2, 3, 4)));
    }
}
