'use strict';

const pricing = require('./pricing');
const format = require('./format');

class Cart {
  constructor(region) {
    this.region = region;
    this.items = [];
  }

  addItem(name, cents, quantity = 1) {
    this.items.push({ name, cents, quantity });
    return this;
  }

  subtotal() {
    return this.items.reduce((sum, item) => sum + item.cents * item.quantity, 0);
  }

  total(code) {
    return pricing.finalPrice(this.subtotal(), this.region, code);
  }

  receipt(code) {
    const lines = this.items.map((item) => format.line(item.name, item.cents * item.quantity, 'EUR'));
    lines.push(format.line('total', this.total(code), 'EUR'));
    return lines.join('\n');
  }
}

module.exports = { Cart };
