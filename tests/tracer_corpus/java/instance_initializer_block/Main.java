public class Main {
    static int counter;

    static void bump() {
        counter++;
    }

    static class Widget {
        {
            bump();
        }

        Widget(int size) {
            validate(size);
        }

        void validate(int size) {
        }
    }

    public static void main(String[] args) {
        new Widget(3);
        System.out.println(counter);
    }
}
