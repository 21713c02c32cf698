class MathUtil {
  static square(x) {
    return x * x;
  }
  static sumSquares(a, b) {
    return MathUtil.square(a) + MathUtil.square(b);
  }
}
console.log(MathUtil.sumSquares(2, 3));
