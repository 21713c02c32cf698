'use strict';
// eventide build runner: order tasks by their dependencies and run them.

class Task {
  constructor(name, deps) {
    this.name = name;
    this.deps = deps || [];
    this.done = false;
  }

  static fromSpec(spec) {
    const [name, rest] = spec.split(':');
    const deps = rest ? rest.split(',') : [];
    return name.endsWith('!') ? new UrgentTask(name.slice(0, -1), deps) : new Task(name, deps);
  }

  run(log) {
    this.done = true;
    log.push(this.label());
  }

  label() {
    return this.name;
  }
}

class UrgentTask extends Task {
  constructor(name, deps) {
    super(name, deps);
    this.urgent = true;
  }

  label() {
    return `${super.label()}!`;
  }
}

class Scheduler {
  constructor(tasks) {
    this.tasks = new Map(tasks.map((t) => [t.name, t]));
  }

  order() {
    const seen = new Set();
    const result = [];
    const visit = (name) => {
      if (seen.has(name)) return;
      seen.add(name);
      const task = this.tasks.get(name);
      task.deps.forEach(visit);
      result.push(task);
    };
    Array.from(this.tasks.keys()).sort().forEach(visit);
    return result;
  }

  runAll() {
    const log = [];
    for (const task of this.order()) {
      task.run(log);
    }
    return log;
  }

  static depth(tasks, name) {
    const task = tasks.get(name);
    if (task.deps.length === 0) return 0;
    return 1 + Math.max(...task.deps.map((d) => Scheduler.depth(tasks, d)));
  }
}

function main() {
  const specs = ['deploy!:build,test', 'build:fetch', 'test:build', 'fetch', 'docs:fetch'];
  const tasks = specs.map(Task.fromSpec);
  const scheduler = new Scheduler(tasks);
  const log = scheduler.runAll();
  console.log('run order:', log.join(' -> '));
  const depths = tasks.map((t) => `${t.name}=${Scheduler.depth(scheduler.tasks, t.name)}`);
  console.log('depths:', depths.join(' '));
}

function retry(task, times) {
  // Not called in this run.
  const log = [];
  for (let i = 0; i < times; i += 1) task.run(log);
  return log;
}

main();
