function greet(name) {
  return format(name);
}
function format(s) {
  return `hi ${s}`;
}
function unused() {}
console.log(greet('a'));
