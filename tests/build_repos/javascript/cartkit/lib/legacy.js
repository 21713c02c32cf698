'use strict';

// Kept for 0.x users; needs lodash.
const _ = require('lodash');
const pricing = require('./pricing');

function bulkTotals(orders, region) {
  return _.map(orders, (order) => pricing.finalPrice(order.subtotal, region, order.code));
}

function summarise(orders, region) {
  const totals = bulkTotals(orders, region);
  return { count: totals.length, taxOnFirst: pricing.applyTax(0, region), totals };
}

module.exports = { bulkTotals, summarise };
