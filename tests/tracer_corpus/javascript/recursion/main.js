function fact(n) {
  return n <= 1 ? 1 : n * fact(n - 1);
}
function isEven(n) {
  return n === 0 ? true : isOdd(n - 1);
}
function isOdd(n) {
  return n === 0 ? false : isEven(n - 1);
}
console.log(fact(5), isEven(4));
