const { double, triple } = require('./shared');

function work(n) {
  return triple(n) + double(n);
}

function report(value) {
  console.log(value);
}

report(work(Number(process.argv[2])));
