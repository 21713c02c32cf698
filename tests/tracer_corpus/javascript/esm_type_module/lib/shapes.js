export default function area(w, h) {
  return w * h;
}
export class Box {
  constructor(w) {
    this.w = w;
  }
  volume() {
    return area(this.w, this.w) * this.w;
  }
}
