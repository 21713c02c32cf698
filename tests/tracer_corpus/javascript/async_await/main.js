async function fetchValue() {
  await null;
  return compute(5);
}
function compute(x) {
  return x + 1;
}
async function handle() {
  const v = await fetchValue();
  return format(v);
}
function format(v) {
  return `v=${v}`;
}
async function main() {
  console.log(await handle());
}
main();
