function double(x) {
  return x * 2;
}
function run(xs) {
  return xs.map(double).map((x) => x + 1);
}
run([1, 2]);
