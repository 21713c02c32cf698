"""The studio wording's worked example, one per language (`core.llm.prompt_wording` renders them).

Each example obeys the naming rules of docs/benchmark.md (module node, constructors, arrows, Java
signatures) and asks its questions as the paper's assembly does, because the model copies the
example's spelling into its answers.
"""
from __future__ import annotations

from dataclasses import dataclass

from core.languages import get


@dataclass(frozen=True)
class WorkedExample:
    file: str
    code: str
    questions: tuple[str, ...]
    answers: tuple[str, ...]  # "" = no calls, shown as a bare number
    naming: str  # one sentence on how names are written


PYTHON = WorkedExample(
    file="main.py",
    code='''class Greeter:
    def __init__(self, name):
        self.name = name

    def greet(self):
        return format_greeting(self.name)


def format_greeting(name):
    return "Hello, " + name


def main():
    greeter = Greeter("Ada")
    say = greeter.greet
    print(say())


main()
''',
    questions=(
        'What are the module-level function calls in the file "main.py"?',
        'What are the function calls inside the "main.Greeter.__init__" function in the file "main.py"?',
        'What are the function calls inside the "main.Greeter.greet" function in the file "main.py"?',
        'What are the function calls inside the "main.format_greeting" function in the file "main.py"?',
        'What are the function calls inside the "main.main" function in the file "main.py"?',
    ),
    answers=("main.main", "", "main.format_greeting", "", "main.Greeter.__init__, main.Greeter.greet"),
    naming='Names carry the module prefix, e.g. "main.func" or "main.Class.method"; a constructor is '
           '"main.Class.__init__".',
)

JAVASCRIPT = WorkedExample(
    file="main.js",
    code='''class Counter {
  constructor(start) {
    this.value = start;
  }

  increment() {
    this.value += 1;
    return this.value;
  }
}

const double = (x) => x * 2;

function run(apply) {
  const counter = new Counter(1);
  return apply(counter.increment());
}

console.log(run(double));
''',
    questions=(
        'What are the module-level function calls in the file "main.js"?',
        'What are the function calls inside the "main.Counter.constructor" function in the file "main.js"?',
        'What are the function calls inside the "main.Counter.increment" function in the file "main.js"?',
        'What are the function calls inside the "main.<arrow1>" function in the file "main.js"?',
        'What are the function calls inside the "main.run" function in the file "main.js"?',
    ),
    answers=("main.run", "", "", "", "main.Counter.constructor, main.Counter.increment, main.<arrow1>"),
    naming='Names carry the module prefix, e.g. "main.func" or "main.Class.method"; a constructor is '
           '"main.Class.constructor" and arrow functions are "main.<arrowN>", numbered in source order.',
)

JAVA = WorkedExample(
    file="Main.java",
    code='''package demo;

public class Main {
    public static void main(String[] args) {
        Shape shape = new Square(2);
        System.out.println(describe(shape, "area"));
    }

    static String describe(Shape shape, String label) {
        return label + "=" + shape.area();
    }
}

interface Shape {
    double area();
}

class Square implements Shape {
    private final double side;

    Square(double side) {
        this.side = side;
    }

    public double area() {
        return side * side;
    }
}
''',
    questions=(
        "What are the target functions invoked by demo.Main:main(java.lang.String[]) in the demo.Main class?",
        "What are the target functions invoked by demo.Main:describe(demo.Shape,java.lang.String) in the demo.Main "
        "class?",
        "What are the target functions invoked by demo.Square:<init>(double) in the demo.Square class?",
        "What are the target functions invoked by demo.Square:area() in the demo.Square class?",
    ),
    answers=("demo.Square:<init>(double), demo.Main:describe(demo.Shape,java.lang.String)", "demo.Square:area()",
             "", ""),
    naming='Names carry the package and the parameter types, e.g. "pkg.Class:method(int,java.lang.String)"; a '
           'constructor is "pkg.Class:<init>(...)".',
)



def worked_example(language: str) -> WorkedExample | None:
    """The language's worked example (`Language.studio_example`), None for a language without one."""
    described = get(language)
    return described.part("studio_example") if described.studio_example else None
