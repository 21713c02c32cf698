class Temp {
  constructor(c) {
    this._c = c;
  }
  get fahrenheit() {
    return toF(this._c);
  }
  set fahrenheit(f) {
    this._c = toC(f);
  }
}
function toF(c) { return c * 9 / 5 + 32; }
function toC(f) { return (f - 32) * 5 / 9; }
function main() {
  const t = new Temp(100);
  const f = t.fahrenheit;
  t.fahrenheit = 32;
  return f;
}
main();
