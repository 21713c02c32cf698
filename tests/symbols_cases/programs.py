"""Three small programs (Python, JavaScript, Java) whose symbols the tests spell out by hand.

Each source starts at line 1 on the line after its opening quotes, so the line numbers in
the tests can be checked by counting lines here.
"""

PY_MAIN = """\
import functools
from pkg.shapes import Circle, area_of


def memo(fn):
    cache = {}

    @functools.wraps(fn)
    def wrapper(*args):
        if args not in cache:
            cache[args] = fn(*args)
        return cache[args]
    return wrapper


@memo
def fib(n, step=lambda k: k - 1):
    return n if n < 2 else fib(step(n)) + fib(n - 2)


class Registry:
    default = staticmethod(lambda: Registry())
    sort_key = lambda self, item: item.name

    def __new__(cls, *args):
        return super().__new__(cls)

    def __init__(self):
        self.items = [Circle(r) for r in range(3)]
        self.on_change = lambda item: print(item)

    @property
    def size(self):
        return len(self.items)

    @size.setter
    def size(self, value):
        raise AttributeError(value)

    class Entry:
        def describe(self):
            return sorted(self.tags, key=lambda t: t.lower())

    async def refresh(self):
        def pick(items):
            return [i for i in items if (lambda i: i.ok)(i)]
        return pick(self.items)


def main():
    registry = Registry()
    total = sum(map(lambda c: area_of(c), registry.items))
    registry.on_change(total)
    print(fib(10), total)


if __name__ == "__main__":
    main()
"""

PY_PKG_INIT = """\
\"\"\"Shapes package.\"\"\"
from .shapes import Circle


def version():
    return "1.0"
"""

PY_SHAPES = """\
import math


class Circle:
    def __init__(self, r):
        self.r = r

    def area(self):
        return math.pi * self.r ** 2


class Square:
    side = 1


def area_of(shape):
    return shape.area()


def größe(shape):
    return área(shape)


def área(shape): return area_of(shape)
ʎ = 0; λ = lambda s: größe(s)
"""

PYTHON = {
    "main.py": PY_MAIN,
    "pkg/__init__.py": PY_PKG_INIT,
    "pkg/shapes.py": PY_SHAPES,
    "README.md": "Source: https://example.org/shapes\n",
}

JS_MAIN = """\
'use strict';
const { helper, Counter } = require('./lib/util');

const double = (x) => x * 2;
const square = function (x) { return x * x; };
const cube = function power3(x) { return x * x * x; };

function compose(f, g) {
  function composed(x) { return f(g(x)); }
  return composed;
}

class Shape {
  constructor(name) { this.name = name; this.describe = function () { return name; }; }
  static create(name) { return new Shape(name); }
  get label() { return this.name.toUpperCase(); }
  set label(v) { this.name = v; }
  area() { return 0; }
  #secret() { return helper(this.name); }
  onClick = () => this.area();
}

class Square extends Shape {
  constructor(side) {
    super('square');
    this.side = side;
  }
  area() {
    const sides = [1, 2].map(function (n) { return n; });
    return square(this.side);
  }
}

function Legacy(x) { this.x = x; }
Legacy.prototype.get = function () { return this.x; };
Legacy.prototype.twice = function twiceNamed() { return double(this.x); };

const api = {
  run() { return compose(double, square)(2); },
  stop: function () { return null; },
  nested: { deep() { return 1; } },
  arrow: () => api.run(),
  'quoted-key': function () {},
};

module.exports.start = function () { return new Square(2).area(); };
exports.stop = function () {};

(function () {
  function hidden() { return cube(3); }
  hidden();
})();

[1, 2, 3].forEach((n) => console.log(double(n)));
setTimeout(function () { api.run(); }, 0);
console.log(Shape.create('x').area(), new Counter().inc());
"""

JS_UTIL = """\
function helper(s) { return s.trim(); }

class Counter {
  constructor() { this.n = 0; }
  inc() { this.n += 1; return this; }
}

const tools = { pad: (s) => s + ' ' };
module.exports = { helper, Counter, tools, format(s) { return helper(s); } };
"""

JAVASCRIPT = {"main.js": JS_MAIN, "lib/util.js": JS_UTIL, "package.json": "{}\n"}

JAVA_MAIN = """\
package com.shop;

import java.util.ArrayList;
import java.util.List;
import com.shop.model.Item;

public class Main {
    private static final List<Item> ITEMS = new ArrayList<>();

    static {
        ITEMS.add(new Item("apple", 3));
    }

    public static void main(String[] args) {
        Cart cart = new Cart();
        for (Item item : ITEMS) {
            cart.add(item);
        }
        Runnable report = new Runnable() {
            @Override
            public void run() {
                System.out.println(cart.total());
            }
        };
        report.run();
        ITEMS.forEach(i -> log(i));
        ITEMS.stream().map(Item::getName).forEach(Main::log);
    }

    static void log(Object o) {
        System.out.println(o);
    }

    static void log(String message, int level) {
        System.out.println(level + message);
    }

    static <T extends Comparable<T>> T best(List<T> xs, T... extra) {
        return xs.get(0);
    }
}
"""

JAVA_CART = """\
package com.shop;

import com.shop.model.Item;
import java.util.*;

class Cart {
    private final Map<String, List<Item>> lines = new HashMap<>();

    Cart() {
        this(16);
    }

    Cart(int capacity) {
    }

    void add(Item item) {
        lines.computeIfAbsent(item.getName(), k -> new ArrayList<>()).add(item);
    }

    int total() {
        int sum = 0;
        for (List<Item> group : lines.values()) {
            for (Item i : group) {
                sum += i.price();
            }
        }
        return sum;
    }

    void merge(Cart other, Item[] extra, int counts[], Map<String, Item> index) {
    }

    static class Line {
        Line(Item item, Thread owner, Class<?> type) {
        }

        String render(Throwable error, Runnable callback) {
            return error.getMessage();
        }
    }
}
"""

JAVA_ITEM = """\
package com.shop.model;

public class Item implements Priced {
    private final String name;
    private final int price;

    public Item(String name, int price) {
        this.name = name;
        this.price = price;
    }

    public String getName() {
        return name;
    }

    @Override
    public int price() {
        return price;
    }
}

interface Priced {
    int price();

    default boolean isFree() {
        return price() == 0;
    }

    static Priced zero() {
        return () -> 0;
    }
}

enum Size {
    SMALL {
        @Override
        int factor() { return 1; }
    },
    LARGE;

    Size() {
    }

    int factor() { return 2; }
}

record Price(int cents, String currency) {
    Price {
        validate(cents);
    }

    static void validate(int cents) {
    }
}
"""

JAVA = {
    "com/shop/Main.java": JAVA_MAIN,
    "com/shop/Cart.java": JAVA_CART,
    "com/shop/model/Item.java": JAVA_ITEM,
}
