import f from './helper.mjs';
console.log(f(1));
