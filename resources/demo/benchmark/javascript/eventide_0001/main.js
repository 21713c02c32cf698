'use strict';
// eventide: an order pipeline wired together with a small event bus.
const { LoggingBus } = require('./lib/bus');
const { Logger } = require('./lib/logger');
const { formatOrder } = require('./lib/format');

const inventory = { widget: 5, gadget: 1 };

function reserve(order) {
  if ((inventory[order.item] || 0) < order.qty) {
    throw new Error(`out of stock: ${order.item}`);
  }
  inventory[order.item] -= order.qty;
  return true;
}

const notifyShipping = (order) => `ship ${formatOrder(order)}`;

function main() {
  const logger = new Logger('[orders]');
  const bus = new LoggingBus('shop', logger);
  const shipped = [];

  const stop = bus.on('order', (order) => {
    try {
      reserve(order);
      shipped.push(notifyShipping(order));
    } catch (err) {
      bus.emit('backorder', order);
    }
  });
  bus.once('backorder', function (order) {
    logger.write(`first backorder: ${order.id}`);
  });

  const orders = [
    { id: 'A1', item: 'widget', qty: 2 },
    { id: 'A2', item: 'gadget', qty: 3 },
    { id: 'A3', item: 'gadget', qty: 1 },
    { id: 'A4', item: 'widget', qty: 9 },
  ];
  orders.forEach((order) => bus.emit('order', order));
  stop();
  bus.emit('order', { id: 'A5', item: 'widget', qty: 1 });

  logger.flush();
  shipped.forEach((line) => console.log(line));
  console.log('events:', bus.history.join(','));
}

function audit(bus) {
  // Not called in this run.
  return bus.history.filter((event) => event === 'backorder').length;
}

main();
