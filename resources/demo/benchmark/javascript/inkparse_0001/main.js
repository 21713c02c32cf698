'use strict';
// inkparse: a tokenizer and recursive-descent evaluator for arithmetic with variables.

function tokenize(src) {
  const tokens = [];
  let i = 0;
  function readNumber() {
    let j = i;
    while (j < src.length && /[0-9.]/.test(src[j])) j += 1;
    const tok = { type: 'num', value: parseFloat(src.slice(i, j)) };
    i = j;
    return tok;
  }
  while (i < src.length) {
    const ch = src[i];
    if (ch === ' ') {
      i += 1;
    } else if (/[0-9]/.test(ch)) {
      tokens.push(readNumber());
    } else if (/[a-z]/.test(ch)) {
      tokens.push({ type: 'name', value: ch });
      i += 1;
    } else {
      tokens.push({ type: 'op', value: ch });
      i += 1;
    }
  }
  return tokens;
}

class Parser {
  constructor(tokens) {
    this.tokens = tokens;
    this.pos = 0;
  }

  peek() {
    const tok = this.tokens[this.pos];
    return tok ? tok.value : null;
  }

  next() {
    const tok = this.tokens[this.pos];
    this.pos += 1;
    return tok;
  }

  parseExpr() {
    let left = this.parseTerm();
    while (this.peek() === '+' || this.peek() === '-') {
      const op = this.next().value;
      left = { op, left, right: this.parseTerm() };
    }
    return left;
  }

  parseTerm() {
    let left = this.parseFactor();
    while (this.peek() === '*' || this.peek() === '/') {
      const op = this.next().value;
      left = { op, left, right: this.parseFactor() };
    }
    return left;
  }

  parseFactor() {
    const tok = this.next();
    if (tok.value === '(') {
      const inner = this.parseExpr();
      this.next();
      return inner;
    }
    return tok;
  }
}

const OPS = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => a / b,
};

function evaluate(node, env) {
  if (node.type === 'num') return node.value;
  if (node.type === 'name') return lookup(node.value, env);
  return OPS[node.op](evaluate(node.left, env), evaluate(node.right, env));
}

function lookup(name, env) {
  if (!(name in env)) {
    throw new ReferenceError(`unknown variable ${name}`);
  }
  return env[name];
}

function isEven(n) {
  return n === 0 ? true : isOdd(n - 1);
}

function isOdd(n) {
  return n === 0 ? false : isEven(n - 1);
}

function countNodes(node) {
  if (!node.op) return 1;
  return 1 + countNodes(node.left) + countNodes(node.right);
}

function run(line, env) {
  const ast = new Parser(tokenize(line)).parseExpr();
  return { value: evaluate(ast, env), size: countNodes(ast) };
}

function prettyPrint(node) {
  // Not called in this run.
  if (!node.op) return String(node.value);
  return `(${prettyPrint(node.left)} ${node.op} ${prettyPrint(node.right)})`;
}

function main() {
  const env = { x: 4, y: 10 };
  const lines = ['1 + 2 * 3', '(x + 2) * (y - 7)', 'y / 4 - x', 'z + 1'];
  lines.forEach((line) => {
    try {
      const { value, size } = run(line, env);
      let parity = 'fraction';
      if (Number.isInteger(value)) {
        parity = isEven(Math.abs(value)) ? 'even' : 'odd';
      }
      console.log(`${line} = ${value} (${size} nodes, ${parity})`);
    } catch (err) {
      console.log(`${line} -> ${err.message}`);
    }
  });
}

main();
