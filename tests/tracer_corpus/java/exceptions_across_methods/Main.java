public class Main {
    static int parse(String s) {
        if (s.isEmpty()) {
            throw new IllegalArgumentException("empty");
        }
        return Integer.parseInt(s);
    }

    static int safeParse(String s) {
        try {
            return parse(s);
        } catch (IllegalArgumentException e) {
            return fallback();
        }
    }

    static int fallback() {
        return -1;
    }

    static void after() {
    }

    public static void main(String[] args) {
        System.out.println(safeParse("12") + safeParse("") + safeParse("x"));
        after();
    }
}
