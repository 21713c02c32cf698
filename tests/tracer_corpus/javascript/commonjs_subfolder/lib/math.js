const { pad } = require('./util/strings');
function add(a, b) {
  return a + b;
}
function show(n) {
  return pad(String(n));
}
module.exports = { add, show };
