class Base {
    String greet() {
        return "base";
    }
}

class Child extends Base {
    @Override
    String greet() {
        return "child+" + super.greet();
    }
}

public class Main {
    public static void main(String[] args) {
        System.out.println(new Child().greet());
    }
}
