'use strict';

class Logger {
  constructor(prefix) {
    this.prefix = prefix;
    this.lines = [];
  }

  write(line) {
    this.lines.push(line);
  }

  flush() {
    this.lines.forEach((line) => console.log(`${this.prefix} ${line}`));
    this.lines = [];
  }
}

module.exports = { Logger };
