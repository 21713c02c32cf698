'use strict';

function pad(text, width) {
  return String(text).padEnd(width, ' ');
}

function formatOrder(order) {
  return `${pad(order.id, 4)}${pad(order.item, 8)}x${order.qty}`;
}

function formatMoney(cents) {
  return `$${(cents / 100).toFixed(2)}`;
}

module.exports = { pad, formatOrder, formatMoney };
