'use strict';
const { Shape } = require('./shape');

class Rect extends Shape {
  constructor(w, h, kind = 'rect') {
    super(kind);
    this.w = w;
    this.h = h;
  }

  area() {
    return this.w * this.h;
  }

  perimeter() {
    return 2 * (this.w + this.h);
  }
}

class Square extends Rect {
  constructor(side) {
    super(side, side, 'square');
  }

  describe() {
    return `${super.describe()} side=${this.w}`;
  }
}

class Triangle extends Shape {
  constructor(a, b, c) {
    super('triangle');
    this.sides = [a, b, c];
  }

  perimeter() {
    return this.sides.reduce((sum, side) => sum + side, 0);
  }

  area() {
    const s = this.perimeter() / 2; // Heron's formula
    const product = this.sides.reduce((acc, side) => acc * (s - side), s);
    return Math.sqrt(product);
  }
}

module.exports = { Rect, Square, Triangle };
