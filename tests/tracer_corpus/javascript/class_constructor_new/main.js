class Point {
  constructor(x, y) {
    this.x = x;
    this.norm = norm(x, y);
  }
}
function norm(x, y) {
  return Math.sqrt(x * x + y * y);
}
function make() {
  return new Point(3, 4);
}
make();
