function validate(x) {
  if (x < 0) throw new RangeError('negative');
  return x;
}
function recover(e) {
  return 0;
}
function safe(x) {
  try {
    return validate(x);
  } catch (e) {
    return recover(e);
  }
}
function after() {
  return 1;
}
console.log(safe(-1), safe(2), after());
