'use strict';
// cartwheel: a shopping cart with pluggable discount rules.

class Product {
  constructor(sku, name, cents) {
    this.sku = sku;
    this.name = name;
    this.cents = cents;
  }

  toString() {
    return `${this.name} (${money.format(this.cents)})`;
  }
}

class Cart {
  constructor(owner) {
    this.owner = owner;
    this.lines = [];
  }

  add(product, qty = 1) {
    const existing = this.lines.find((line) => line.product.sku === product.sku);
    if (existing) {
      existing.qty += qty;
    } else {
      this.lines.push({ product, qty });
    }
    return this;
  }

  subtotal() {
    return this.lines.reduce((sum, line) => sum + line.product.cents * line.qty, 0);
  }

  itemCount() {
    return this.lines.reduce((n, line) => n + line.qty, 0);
  }
}

const money = {
  format(cents) {
    return `$${(cents / 100).toFixed(2)}`;
  },
  percentOf(cents, pct) {
    return Math.round((cents * pct) / 100);
  },
};

const pricing = {
  rules: [],
  register(rule) {
    this.rules.push(rule);
  },
  discount(cart) {
    return this.rules
      .map((rule) => rule(cart))
      .reduce((best, amount) => Math.max(best, amount), 0);
  },
  total(cart) {
    const sub = cart.subtotal();
    const off = this.discount(cart);
    return sub - off + money.percentOf(sub - off, 8);
  },
};

const applyCoupon = function (code) {
  function couponRule(cart) {
    return code === 'SAVE10' ? money.percentOf(cart.subtotal(), 10) : 0;
  }
  return couponRule;
};

const bulkRule = (cart) => (cart.itemCount() >= 5 ? 500 : 0);

function buildCatalog() {
  return [
    new Product('p1', 'Notebook', 450),
    new Product('p2', 'Pen', 120),
    new Product('p3', 'Backpack', 3999),
  ];
}

function main() {
  const [notebook, pen, backpack] = buildCatalog();
  const cart = new Cart('dana');
  cart.add(notebook, 2).add(pen, 3).add(notebook);
  pricing.register(applyCoupon('SAVE10'));
  pricing.register(bulkRule);
  console.log(`cart for ${cart.owner}: ${cart.lines.length} lines`);
  console.log(`featured: ${backpack}`);
  console.log('subtotal', money.format(cart.subtotal()));
  console.log('total', money.format(pricing.total(cart)));
}

function clearCart(cart) {
  // Not used by this demo.
  cart.lines = [];
}

main();
