function applyTwice(fn, x) {
  return fn(fn(x));
}
function inc(x) {
  return x + 1;
}
function run() {
  return applyTwice(inc, 0);
}
run();
