public class Main {
    static void fire(Runnable r) {
        r.run();
    }

    static void leaf() {
    }

    public static void main(String[] args) {
        fire(new Runnable() {
            public void run() {
                fire(new Runnable() {
                    public void run() {
                        leaf();
                    }
                });
            }
        });
    }
}
