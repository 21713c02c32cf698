"""calcpad: tokenize, parse and evaluate small arithmetic programs with variables."""
import re

TOKEN_RE = re.compile(r"\s*(?:(\d+\.?\d*)|([A-Za-z_]\w*)|(\S))")


class Token:
    def __init__(self, kind, text):
        self.kind = kind
        self.text = text

    def __repr__(self):
        return f"Token({self.kind}, {self.text!r})"


def tokenize(source):
    tokens = []
    for number, name, op in TOKEN_RE.findall(source):
        if number:
            tokens.append(Token("num", number))
        elif name:
            tokens.append(Token("name", name))
        elif op:
            tokens.append(Token("op", op))
    return tokens


def apply_op(op, a, b):
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    return a / b


class Node:
    def eval(self, env):
        raise NotImplementedError


class Num(Node):
    def __init__(self, value):
        self.value = value

    def eval(self, env):
        return self.value


class Var(Node):
    def __init__(self, name):
        self.name = name

    def eval(self, env):
        if self.name not in env:
            raise NameError(self.name)
        return env[self.name]


class BinOp(Node):
    def __init__(self, op, left, right):
        self.op = op
        self.left = left
        self.right = right

    def eval(self, env):
        return apply_op(self.op, self.left.eval(env), self.right.eval(env))


class Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.pos = 0

    def peek(self):
        return self.tokens[self.pos].text if self.pos < len(self.tokens) else None

    def advance(self):
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def parse_expr(self):
        node = self.parse_term()
        while self.peek() in ("+", "-"):
            op = self.advance().text
            node = BinOp(op, node, self.parse_term())
        return node

    def parse_term(self):
        node = self.parse_factor()
        while self.peek() in ("*", "/"):
            op = self.advance().text
            node = BinOp(op, node, self.parse_factor())
        return node

    def parse_factor(self):
        tok = self.advance()
        if tok.text == "(":
            node = self.parse_expr()
            self.advance()
            return node
        if tok.text == "-":
            return BinOp("-", Num(0.0), self.parse_factor())
        if tok.kind == "num":
            return Num(float(tok.text))
        return Var(tok.text)


def evaluate(source, env):
    tree = Parser(tokenize(source)).parse_expr()
    return tree.eval(env)


def evaluate_all(lines, env):
    results = {}
    for line in lines:
        name, _, expr = line.partition("=")
        name = name.strip()
        try:
            results[name] = env[name] = evaluate(expr, env)
        except (NameError, ZeroDivisionError) as exc:
            results[name] = f"error: {type(exc).__name__}"
    return results


def debug_tokens(source):
    # Handy while developing the grammar; not called in this run.
    for tok in tokenize(source):
        print(tok)


def main():
    program = [
        "x = 3 + 4 * 2",
        "y = (x - 1) / 2",
        "z = -y * (2 + x)",
        "w = q + 1",
        "v = x / (y - 5)",
    ]
    env = {}
    for name, value in evaluate_all(program, env).items():
        print(f"{name} = {value}")
    print("tokens:", tokenize("a+1"))


if __name__ == "__main__":
    main()
