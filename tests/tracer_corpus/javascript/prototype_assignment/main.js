function Stack() {
  this.items = [];
}
Stack.prototype.push = function (x) {
  this.items.push(x);
  return this.size();
};
Stack.prototype.size = function () {
  return this.items.length;
};
const s = new Stack();
s.push(1);
