function makeCounter() {
  let n = 0;
  return function increment() {
    n += 1;
    return log(n);
  };
}
function log(v) {
  return v;
}
const next = makeCounter();
function use() {
  next();
  next();
}
use();
