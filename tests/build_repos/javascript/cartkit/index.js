'use strict';

const { Cart } = require('./lib/cart');
const pricing = require('./lib/pricing');
const format = require('./lib/format');

function quickTotal(items, region) {
  const cart = new Cart(region);
  for (const [name, cents] of items) {
    cart.addItem(name, cents);
  }
  return format.money(cart.total(), 'EUR');
}

module.exports = { Cart, quickTotal, pricing, format };
