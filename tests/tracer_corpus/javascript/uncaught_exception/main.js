function before() {
  return 1;
}
function boom() {
  before();
  throw new TypeError('bad thing');
}
function never() {}
boom();
never();
