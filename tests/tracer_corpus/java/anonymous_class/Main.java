public class Main {
    interface Greeter {
        String greet(String who);
    }

    static String shout(String s) {
        return s.toUpperCase();
    }

    public static void main(String[] args) {
        Greeter g = new Greeter() {
            @Override
            public String greet(String who) {
                return shout("hi " + who);
            }
        };
        System.out.println(g.greet("bob"));
    }
}
