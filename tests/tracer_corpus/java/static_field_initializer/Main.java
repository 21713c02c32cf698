import java.util.ArrayList;
import java.util.List;

class Registry {
    static final List<String> NAMES = build();

    static List<String> build() {
        return new ArrayList<>(List.of("a", "b"));
    }

    static int count() {
        return NAMES.size();
    }
}

public class Main {
    public static void main(String[] args) {
        System.out.println(Registry.count());
    }
}
