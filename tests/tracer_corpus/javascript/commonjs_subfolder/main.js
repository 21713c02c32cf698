const math = require('./lib/math');
function main() {
  return math.show(math.add(1, 2));
}
console.log(main());
