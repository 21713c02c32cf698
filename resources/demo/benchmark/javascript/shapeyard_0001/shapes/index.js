'use strict';
const { Shape } = require('./shape');
const { Circle } = require('./circle');
const { Rect, Square, Triangle } = require('./polygon');

const registry = {
  circle: (args) => new Circle(args[0]),
  rect: (args) => new Rect(args[0], args[1]),
  square: (args) => new Square(args[0]),
  triangle: (args) => new Triangle(args[0], args[1], args[2]),
};

function create(spec) {
  const [kind, ...rest] = spec.split(' ');
  const factory = registry[kind];
  if (!factory) {
    throw new Error(`unknown shape: ${kind}`);
  }
  return factory(rest.map(Number));
}

module.exports = { Shape, create };
