'use strict';
const { Shape } = require('./shape');

class Circle extends Shape {
  constructor(r) {
    super('circle');
    this.r = r;
  }

  area() {
    return Math.PI * this.r * this.r;
  }

  perimeter() {
    return 2 * Math.PI * this.r;
  }
}

module.exports = { Circle };
