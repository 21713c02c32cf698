const EventEmitter = require('events');
function parse(x) {
  return x;
}
function onData(x) {
  return parse(x);
}
function wire() {
  const emitter = new EventEmitter();
  emitter.on('data', onData);
  return emitter;
}
function fire(emitter) {
  emitter.emit('data', 1);
}
fire(wire());
