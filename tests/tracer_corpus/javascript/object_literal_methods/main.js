const calc = {
  add(a, b) {
    return a + b;
  },
  twice: function (a) {
    return calc.add(a, a);
  },
  nested: {
    deep(a) {
      return calc.twice(a);
    },
  },
};
console.log(calc.nested.deep(5));
