import java.util.List;

public class Main {
    static class Box<T> {
        private final T value;

        Box(T value) {
            this.value = value;
        }

        T get() {
            return value;
        }
    }

    static <T> T first(List<T> items) {
        return items.get(0);
    }

    static <T extends Comparable<T>> T max(T a, T b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    public static void main(String[] args) {
        Box<String> box = new Box<>(first(List.of("a", "b")));
        System.out.println(box.get() + max(3, 4));
    }
}
