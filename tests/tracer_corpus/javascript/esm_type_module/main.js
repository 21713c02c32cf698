import area, { Box } from './lib/shapes.js';
const b = new Box(2);
console.log(area(2, 3), b.volume());
