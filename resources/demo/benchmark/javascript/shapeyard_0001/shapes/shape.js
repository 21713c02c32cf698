'use strict';

class Shape {
  constructor(kind) {
    this.kind = kind;
  }

  area() {
    throw new Error(`${this.kind}: area() not implemented`);
  }

  perimeter() {
    return 0;
  }

  describe() {
    const area = this.area().toFixed(2);
    const perimeter = this.perimeter().toFixed(2);
    return `${this.kind.padEnd(8)} area=${area} perimeter=${perimeter}`;
  }

  static compareByArea(a, b) {
    return a.area() - b.area();
  }
}

module.exports = { Shape };
