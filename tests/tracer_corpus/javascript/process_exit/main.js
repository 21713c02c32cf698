function finish() {
  process.exit(3);
}
function work() {
  finish();
}
function after() {}
work();
after();
