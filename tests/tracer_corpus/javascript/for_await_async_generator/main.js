async function* numbers() {
  yield 1;
  await null;
  yield scale(2);
}
function scale(x) {
  return x * 10;
}
function record(n) {
  return n;
}
function finish(s) {
  console.log(s);
}
async function main() {
  let s = 0;
  for await (const n of numbers()) {
    s += record(n);
  }
  finish(s);
}
main();
