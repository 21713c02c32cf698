interface Named {
    String name();

    default String label() {
        return "[" + name() + "]";
    }
}

class Cat implements Named {
    public String name() {
        return "cat";
    }
}

public class Main {
    public static void main(String[] args) {
        System.out.println(new Cat().label());
    }
}
