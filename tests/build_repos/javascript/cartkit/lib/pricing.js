'use strict';

const rates = require('./tax-rates.json');

const CODES = { WELCOME10: 0.1, HALF: 0.5 };

function taxRate(region) {
  return region in rates ? rates[region] : rates.default;
}

function discount(subtotal, code) {
  const share = CODES[code] || 0;
  return Math.round(subtotal * share);
}

function applyTax(cents, region) {
  return Math.round(cents * (1 + taxRate(region)));
}

function finalPrice(subtotal, region, code) {
  const reduced = subtotal - discount(subtotal, code);
  return applyTax(reduced, region);
}

module.exports = { taxRate, discount, applyTax, finalPrice };
