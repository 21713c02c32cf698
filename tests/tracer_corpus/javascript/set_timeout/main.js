function tick() {
  done();
}
function done() {
  console.log('done');
}
function schedule() {
  setTimeout(tick, 5);
}
schedule();
