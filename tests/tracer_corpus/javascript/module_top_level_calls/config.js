function load() {
  return { a: 1 };
}
const values = load();
function get(key) {
  return values[key];
}
module.exports = { get };
