function* range(n) {
  for (let i = 0; i < n; i++) yield step(i);
}
function step(i) {
  return i * 2;
}
function note(v) {
  return v;
}
function consume() {
  let s = 0;
  for (const v of range(3)) s += note(v);
  return s;
}
consume();
