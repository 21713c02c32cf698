function tag(strings, ...values) {
  return strings.raw.join('|') + values.map(fmt).join(',');
}
function fmt(v) {
  return `<${v}>`;
}
function sum(a, b, c) {
  return a + b + c;
}
function run() {
  const args = [1, 2, 3];
  return tag`a${sum(...args)}b`;
}
run();
