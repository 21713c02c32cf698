const seen = [];
function visit(x) {
  seen.push(x);
}
function walk(items) {
  items.forEach(function (item) {
    visit(item);
  });
}
walk([1, 2, 3]);
