const square = (x) => x * x;
const addOne = (x) => {
  return x + 1;
};
function compute(v) {
  return addOne(square(v));
}
compute(4);
