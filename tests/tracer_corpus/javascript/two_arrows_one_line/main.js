const inc = (x) => x + 1, dec = (x) => x - 1;
function both(v) {
  return dec(inc(v));
}
both(1);
