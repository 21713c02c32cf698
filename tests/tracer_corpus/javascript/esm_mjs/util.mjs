export function triple(x) {
  return x * 3;
}
export const half = (x) => x / 2;
