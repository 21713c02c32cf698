import copy


class Square:
    def area(self):
        return 4


class Circle:
    def area(self):
        return 3

    def __deepcopy__(self, memo):
        return make()


def make():
    return Circle()


def double(x):
    return 2 * x


def total(shapes):
    result = 0
    for shape in shapes:
        result += shape.area()  # one call site, two callees, alternating
    for f in (double, len, double, abs, double):
        result += f(3) if f is not len else f("ab")  # one site, program and builtin callees
    return result


def main():
    total([Square(), Circle(), Square(), Circle(), Circle()])
    total([Circle()])
    for _ in range(3):
        copy.deepcopy([Circle()])  # a library (Python) frame calls back into the program


main()
