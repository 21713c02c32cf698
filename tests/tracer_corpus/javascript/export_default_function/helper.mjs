export default function (x) {
  return inner(x) + 1;
}
function inner(x) {
  return x * 10;
}
