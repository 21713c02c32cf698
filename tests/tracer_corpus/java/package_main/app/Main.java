package app;

public class Main {
    static class Item {
        int weight() {
            return 3;
        }
    }

    static int weigh(Item item) {
        return item.weight();
    }

    public static void main(String[] args) {
        System.out.println(weigh(new Item()));
    }
}
