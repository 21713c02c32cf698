const account = {
  items: [3, 4],
  get total() {
    return sum(this.items);
  },
};
function sum(xs) {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}
function report() {
  return `total=${account.total}`;
}
console.log(report());
