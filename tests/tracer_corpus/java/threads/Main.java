public class Main {
    static class Worker implements Runnable {
        public void run() {
            compute();
        }

        void compute() {
        }
    }

    static class Ticker extends Thread {
        @Override
        public void run() {
            tick();
        }

        void tick() {
        }
    }

    static void helper() {
    }

    static void spawn() throws InterruptedException {
        Thread t = new Thread(new Worker());
        t.start();
        t.join();
        Thread u = new Thread(() -> helper());
        u.start();
        u.join();
        Ticker k = new Ticker();
        k.start();
        k.join();
    }

    public static void main(String[] args) throws InterruptedException {
        spawn();
    }
}
