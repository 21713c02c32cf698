class Counter {
  constructor() {
    this.n = 0;
  }
  inc() {
    this.n += 1;
    return this.check();
  }
  check() {
    return this.n > 1;
  }
}
const c = new Counter();
c.inc();
c.inc();
