import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Main {
    static final class Token {
        final char kind; // 'n' number, 'v' variable, 'o' operator
        final String text;

        Token(char kind, String text) {
            this.kind = kind;
            this.text = text;
        }
    }

    interface Expr {
        double eval(Env env);

        default int size() {
            return 1;
        }
    }

    static final class Env {
        private final Map<String, Double> values;

        Env() {
            this.values = new HashMap<>();
        }

        Env bind(String name, double value) {
            values.put(name, value);
            return this;
        }

        double lookup(String name) {
            Double v = values.get(name);
            if (v == null) {
                throw new IllegalArgumentException("unbound variable " + name);
            }
            return v;
        }
    }

    static final class Num implements Expr {
        private final double value;

        Num(double value) {
            this.value = value;
        }

        @Override
        public double eval(Env env) {
            return value;
        }
    }

    static final class Var implements Expr {
        private final String name;

        Var(String name) {
            this.name = name;
        }

        @Override
        public double eval(Env env) {
            return env.lookup(name);
        }
    }

    static final class BinOp implements Expr {
        private final char op;
        private final Expr left;
        private final Expr right;

        BinOp(char op, Expr left, Expr right) {
            this.op = op;
            this.left = left;
            this.right = right;
        }

        @Override
        public double eval(Env env) {
            double a = left.eval(env);
            double b = right.eval(env);
            return apply(op, a, b);
        }

        @Override
        public int size() {
            return 1 + left.size() + right.size();
        }
    }

    static final class Parser {
        private final List<Token> tokens;
        private int pos;

        Parser(String source) {
            this.tokens = tokenize(source);
            this.pos = 0;
        }

        private static List<Token> tokenize(String source) {
            List<Token> out = new ArrayList<>();
            int i = 0;
            while (i < source.length()) {
                char c = source.charAt(i);
                if (Character.isWhitespace(c)) {
                    i++;
                } else if (Character.isDigit(c)) {
                    int j = i;
                    while (j < source.length() && (Character.isDigit(source.charAt(j)) || source.charAt(j) == '.')) {
                        j++;
                    }
                    out.add(new Token('n', source.substring(i, j)));
                    i = j;
                } else if (Character.isLetter(c)) {
                    out.add(new Token('v', String.valueOf(c)));
                    i++;
                } else {
                    out.add(new Token('o', String.valueOf(c)));
                    i++;
                }
            }
            return out;
        }

        private boolean at(String text) {
            return pos < tokens.size() && tokens.get(pos).text.equals(text);
        }

        private Token next() {
            return tokens.get(pos++);
        }

        Expr parseExpr() {
            Expr left = parseTerm();
            while (at("+") || at("-")) {
                char op = next().text.charAt(0);
                left = new BinOp(op, left, parseTerm());
            }
            return left;
        }

        Expr parseTerm() {
            Expr left = parseFactor();
            while (at("*") || at("/")) {
                char op = next().text.charAt(0);
                left = new BinOp(op, left, parseFactor());
            }
            return left;
        }

        Expr parseFactor() {
            Token t = next();
            if (t.text.equals("(")) {
                Expr inner = parseExpr();
                next();
                return inner;
            }
            if (t.text.equals("-")) {
                return new BinOp('-', new Num(0), parseFactor());
            }
            if (t.kind == 'n') {
                return new Num(Double.parseDouble(t.text));
            }
            return new Var(t.text);
        }
    }

    static double apply(char op, double a, double b) {
        switch (op) {
            case '+':
                return a + b;
            case '-':
                return a - b;
            case '*':
                return a * b;
            default:
                return a / b;
        }
    }

    static long factorial(int n) {
        return n <= 1 ? 1 : n * factorial(n - 1);
    }

    static String describe(Expr e) {
        // Not called in this run.
        return e.getClass().getSimpleName() + "[" + e.size() + "]";
    }

    public static void main(String[] args) {
        Env env = new Env().bind("x", 3).bind("y", 4);
        String[] inputs = {"x * x + y * y", "-(x - 10) / 2", "2 * (y + z)", "(1 + 2) * (3 + 4) - x"};
        for (String input : inputs) {
            Expr tree = new Parser(input).parseExpr();
            try {
                System.out.println(input + " = " + tree.eval(env) + " [" + tree.size() + " nodes]");
            } catch (IllegalArgumentException e) {
                System.out.println(input + " -> " + e.getMessage());
            }
        }
        System.out.println("5! = " + factorial(5));
    }
}
