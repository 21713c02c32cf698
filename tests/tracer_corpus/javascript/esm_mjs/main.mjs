import { triple, half } from './util.mjs';
function run() {
  return half(triple(4));
}
console.log(run());
