public class Main {
    static int basePlain() { return 1; }
    static int bareField() { return 2; }
    static int derivedField() { return 3; }
    static int implicitDerivedField() { return 4; }
    static int rootField() { return 5; }
    static int middleField() { return 6; }
    static int leafField() { return 7; }
    static int staticField() { return 8; }
    static int staticBlock() { return 9; }
    static int staticOnly() { return 10; }
    static int chainField() { return 11; }

    static class WithCtor {
        int plain = Main.basePlain();

        WithCtor() {
        }
    }

    static class NoCtor {
        int bare = Main.bareField();
    }

    static class Derived extends NoCtor {
        int extra = Main.derivedField();

        Derived() {
            super();
        }
    }

    static class DerivedNoCtor extends WithCtor {
        int more = Main.implicitDerivedField();
    }

    static class Root {
        int r = Main.rootField();
    }

    static class Middle extends Root {
        int m = Main.middleField();

        Middle() {
            super();
        }
    }

    static class Leaf extends Middle {
        int l = Main.leafField();
    }

    static class Chained {
        int c = Main.chainField();

        Chained() {
            this(1);
        }

        Chained(int x) {
        }
    }

    static class WithBlock {
        static int s = Main.staticField();

        static {
            Main.staticBlock();
        }
    }

    static class WithoutBlock {
        static int s = Main.staticOnly();
    }

    static int makeAll() {
        new WithCtor();
        new NoCtor();
        new Derived();
        new DerivedNoCtor();
        new Leaf();
        new Chained();
        return WithBlock.s + WithoutBlock.s;
    }

    public static void main(String[] args) {
        makeAll();
    }
}
