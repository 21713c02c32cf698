class Animal {
    final String name;

    Animal(String name) {
        this.name = name;
        register();
    }

    void register() {
    }
}

class Dog extends Animal {
    Dog() {
        super("dog");
        bark();
    }

    void bark() {
    }
}

public class Main {
    public static void main(String[] args) {
        System.out.println(new Dog().name);
    }
}
