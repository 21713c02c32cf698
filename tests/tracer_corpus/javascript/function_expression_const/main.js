const double = function (x) { return x * 2; };
const named = function triple(x) { return x * 3; };
function run() {
  return double(1) + named(2);
}
run();
