function* inner() {
  yield leaf(1);
  yield leaf(2);
}
function leaf(x) {
  return x;
}
function* outer() {
  yield 0;
  yield* inner();
}
function collect() {
  return [...outer()];
}
collect();
