'use strict';
// shapeyard: build shapes from text specs, sort them and report their sizes.
const { Shape, create } = require('./shapes');

const fmt = function (n) {
  return n.toFixed(1);
};

function largest(shapes) {
  return shapes.reduce((best, s) => (s.area() > best.area() ? s : best));
}

function main() {
  const specs = ['circle 1', 'rect 2 5', 'square 3', 'triangle 3 4 5', 'hexagon 2'];
  const shapes = [];
  for (const spec of specs) {
    try {
      shapes.push(create(spec));
    } catch (err) {
      console.log('skip:', err.message);
    }
  }
  shapes.sort(Shape.compareByArea);
  shapes.forEach(function (shape) {
    console.log(shape.describe());
  });
  const big = largest(shapes);
  console.log('largest:', big.kind, fmt(big.area()));
  console.log('areas:', shapes.map((s) => fmt(s.area())).join(', '));
}

function scaleAll(shapes, k) {
  // Not called in this run.
  return shapes.map((s) => `${s.kind}*${k}`);
}

main();
