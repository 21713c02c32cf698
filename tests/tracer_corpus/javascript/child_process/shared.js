function double(n) {
  return 2 * n;
}

function triple(n) {
  return 3 * n;
}

module.exports = { double, triple };
