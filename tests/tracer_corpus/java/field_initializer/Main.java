public class Main {
    static int seed() {
        return 7;
    }

    static class Box {
        int value = Main.seed();

        Box() {
            describe();
        }

        void describe() {
        }
    }

    static class Bag {
        int size = Main.seed();
    }

    public static void main(String[] args) {
        new Box();
        new Bag();
    }
}
