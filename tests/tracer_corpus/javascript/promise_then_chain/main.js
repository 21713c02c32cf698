function load() {
  return new Promise((resolve) => resolve(2));
}
function double(x) {
  return x * 2;
}
function show(x) {
  console.log(x);
}
function report(error) {
  console.log('failed', error);
}
function main() {
  load().then(double).then(show).catch(report);
}
main();
