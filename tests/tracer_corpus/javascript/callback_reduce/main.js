const add = (acc, x) => acc + x;
function total(xs) {
  return xs.reduce(add, 0);
}
console.log(total([1, 2, 3]));
