// TraceEval JavaScript runtime: the shadow stack the instrumented program reports to.
// Loaded with `node --require <this file>` before the program (works for CommonJS and ES modules),
// it installs `globalThis.__te`, which `tracers/js_instrument.py` calls from the rewritten code.
//
// Rules (see tracers/javascript.py for the whole picture):
// - every program function pushes its frame on entry and pops it on exit; the caller of a call is
//   the top of the shadow stack, i.e. the nearest program frame (built-ins such as Array.prototype.map
//   have no frame, so a callback they run is attributed to the program frame that called them);
// - a module's top-level code runs as the module's own frame; loading a module is not an edge;
// - instance field initialisers of a class with an explicit constructor are that constructor's: a base
//   class runs them before the constructor's body, so the first one pushes the constructor's frame
//   (`fi`) and the body adopts it (`ce`); a derived class runs them when `super()` returns, in its
//   constructor or in an arrow calling `super()` (`fd` puts the constructor back on top, no edge);
// - a generator leaves the stack at `yield` and comes back when resumed (an edge from whoever resumed
//   it); an async function leaves the stack at `await` and comes back, without a new edge, when the
//   continuation runs;
// - a callback run later by a promise job (`then`/`catch`/`finally`) or a timer (`setTimeout`,
//   `setInterval`, `setImmediate`, `queueMicrotask`, `process.nextTick`) is attributed to the program
//   frame that was on top when the callback was registered; a function entered with an empty stack
//   otherwise (an I/O callback from Node internals) makes no edge and is reported as unresolved;
// - each (caller, callee, line) is written to $TRACEEVAL_LOG the first time it is seen (`E`, written
//   at once so a killed run keeps it); exact counts (`C`) are written when the process exits; an
//   uncaught exception or unhandled rejection is written as `X` without changing Node's behaviour.
'use strict';
(function installTraceEvalRuntime() {
  const fs = require('fs');
  const logPath = process.env.TRACEEVAL_LOG;
  const root = process.env.TRACEEVAL_ROOT || process.cwd();
  let fd = -1;
  if (logPath) {
    try { fd = fs.openSync(logPath, 'a'); } catch (error) { fd = -1; }
    delete process.env.TRACEEVAL_LOG; // an inherited descriptor: children have a log of their own
  } else if (process.env.TRACEEVAL_CHILD_LOGS) {
    fd = openChildLog(process.env.TRACEEVAL_CHILD_LOGS);
    if (fd >= 0) write(['P', 'javascript', process.pid, process.argv.slice(0, 24).map((a) => String(a).slice(0, 200))]);
  }

  function write(record) {
    if (fd < 0) return;
    try { fs.writeSync(fd, JSON.stringify(record) + '\n'); } catch (error) { fd = -1; }
  }

  const stack = [];
  const counts = new Map(); // "caller\0callee\0line" -> calls
  const orphans = new Map(); // callee -> calls entered with no program frame below
  const EMPTY = Object.freeze([]);
  const constructing = new WeakMap(); // instance -> its constructor's frame, pushed by a field initialiser
  const COMPILE_ERROR = 'compile error: ';

  function record(caller, callee, line) {
    const key = caller + '\0' + callee + '\0' + line;
    const seen = counts.get(key);
    if (seen === undefined) {
      counts.set(key, 1);
      write(['E', caller, callee, line]);
    } else {
      counts.set(key, seen + 1);
    }
  }

  // A frame remembers the call-site line it was entered with and restores it when it leaves, so
  // a built-in calling several callbacks (map, sort) reports its own line for each of them.
  function push(frame, entering) {
    const depth = stack.length;
    if (depth > 0) record(stack[depth - 1].n, frame.n, te.l);
    else if (entering) orphans.set(frame.n, (orphans.get(frame.n) || 0) + 1);
    frame.i = depth;
    frame.l = te.l;
    stack.push(frame);
  }

  function pop(frame) {
    if (stack[frame.i] === frame) {
      stack.length = frame.i;
      te.l = frame.l;
    }
  }

  const te = {
    l: 0, // call-site line of the call about to happen
    enter(name) { // a program function starts
      const frame = { n: name, i: 0, l: 0 };
      push(frame, true);
      return frame;
    },
    m(name) { // a module's top-level code starts: no edge
      started = true;
      const frame = { n: name, i: stack.length, l: te.l };
      stack.push(frame);
      return frame;
    },
    x(frame) { pop(frame); }, // a function (or module) ends, normally or not
    s(frame, value) { pop(frame); return value; }, // about to suspend (await / yield)
    r(frame, value) { // a generator resumed by whoever is on top
      if (stack[frame.i] !== frame) push(frame, false);
      return value;
    },
    w(frame, value) { // an async function's continuation: back on the stack, no new edge
      if (stack[frame.i] !== frame) {
        frame.i = stack.length;
        frame.l = te.l;
        stack.push(frame);
      }
      return value;
    },
    fi(instance, name, initialiser) { // an instance field initialiser of a class with a constructor
      let frame = constructing.get(instance);
      if (frame === undefined || stack[frame.i] !== frame) {
        frame = te.enter(name);
        constructing.set(instance, frame);
      }
      try {
        return initialiser();
      } catch (error) { // the constructor's body will not run to pop its frame
        constructing.delete(instance);
        pop(frame);
        throw error;
      }
    },
    ce(instance, name) { // that constructor's body starts: adopt the frame its fields pushed
      const frame = constructing.get(instance);
      if (frame === undefined || stack[frame.i] !== frame || frame.n !== name) return te.enter(name);
      constructing.delete(instance);
      return frame;
    },
    fd(name, initialiser) { // an instance field initialiser of a derived class with a constructor
      const top = stack.length - 1;
      if (top < 0 || stack[top].n === name) return initialiser();
      let below = top - 1;
      while (below >= 0 && stack[below].n !== name) below -= 1;
      if (below < 0) return initialiser();
      const frame = { n: name, i: stack.length, l: te.l }; // the constructor again, as `w` resumes
      stack.push(frame);
      try {
        return initialiser();
      } finally {
        pop(frame);
      }
    },
    a(value, line) { te.l = line; return value; },
    z(line) { te.l = line; return EMPTY; },
    d(frame, iterable) { return delegate(frame, iterable); },
    fa(frame, iterable) { return forAwait(frame, iterable); },
  };

  // `yield* inner`: run the inner iterator's steps with the delegating generator on the stack.
  function delegate(frame, iterable) {
    let inner = null;
    const step = (method, value, missing) => {
      const fn = inner[method];
      if (fn === undefined || fn === null) return missing();
      push(frame, false);
      try {
        return Reflect.apply(fn, inner, [value]);
      } finally {
        pop(frame);
      }
    };
    const wrapper = {
      next(value) { return step('next', value, () => { throw new TypeError('iterator has no next'); }); },
      return(value) { return step('return', value, () => ({ value, done: true })); },
      throw(value) {
        return step('throw', value, () => {
          if (typeof inner.return === 'function') inner.return();
          throw new TypeError('The iterator does not provide a \'throw\' method');
        });
      },
    };
    if (iterable != null && typeof iterable[Symbol.asyncIterator] === 'function') {
      wrapper[Symbol.asyncIterator] = function () { inner = iterable[Symbol.asyncIterator](); return wrapper; };
    }
    wrapper[Symbol.iterator] = function () { inner = iterable[Symbol.iterator](); return wrapper; };
    return wrapper;
  }

  // `for await (x of it)`: the loop awaits each step, so the function leaves the stack after asking.
  function forAwait(frame, iterable) {
    if (iterable == null) return iterable;
    const method = iterable[Symbol.asyncIterator] || iterable[Symbol.iterator];
    if (typeof method !== 'function') return iterable;
    const isAsync = typeof iterable[Symbol.asyncIterator] === 'function';
    let inner = null;
    const step = (name, value) => {
      const fn = inner[name];
      const result = Reflect.apply(fn, inner, [value]);
      pop(frame);
      return result;
    };
    const wrapper = {
      next(value) { return step('next', value); },
    };
    const open = function () {
      inner = Reflect.apply(method, iterable, []);
      if (typeof inner.return === 'function') wrapper.return = (value) => step('return', value);
      if (typeof inner.throw === 'function') wrapper.throw = (value) => step('throw', value);
      return wrapper;
    };
    if (isAsync) return { [Symbol.asyncIterator]: open };
    return { [Symbol.iterator]: open };
  }

  // Promise jobs and timers: run the callback above a copy of the frame that registered it.
  function bound(callback) {
    if (typeof callback !== 'function' || stack.length === 0) return callback;
    const context = stack[stack.length - 1].n;
    const line = te.l;
    return function traceEvalBound() {
      const base = stack.length;
      stack.push({ n: context, i: base });
      te.l = line;
      try {
        return Reflect.apply(callback, this, arguments);
      } finally {
        stack.length = base;
      }
    };
  }

  function wrapScheduler(owner, name) {
    const original = owner[name];
    if (typeof original !== 'function') return;
    const wrapped = {
      [name](callback, ...rest) { return Reflect.apply(original, this, [bound(callback), ...rest]); },
    }[name];
    for (const key of Reflect.ownKeys(original)) {
      if (key !== 'length' && key !== 'name' && key !== 'prototype') {
        try {
          Object.defineProperty(wrapped, key, Object.getOwnPropertyDescriptor(original, key));
        } catch (error) { /* not copyable: leave it */ }
      }
    }
    Object.defineProperty(owner, name, { value: wrapped, writable: true, configurable: true, enumerable: true });
  }

  const originalThen = Promise.prototype.then;
  Object.defineProperty(Promise.prototype, 'then', {
    value: function then(onFulfilled, onRejected) {
      return Reflect.apply(originalThen, this, [bound(onFulfilled), bound(onRejected)]);
    },
    writable: true, configurable: true, enumerable: false,
  });
  for (const name of ['setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask']) {
    wrapScheduler(globalThis, name);
  }
  wrapScheduler(process, 'nextTick');

  function describe(error) {
    let text;
    try {
      text = error instanceof Error ? `${error.name}: ${error.message}` : `uncaught value: ${String(error)}`;
    } catch (failure) {
      text = 'uncaught value';
    }
    const where = locate(error);
    return where ? `${text} (${where})` : text;
  }

  function locate(error) {
    let trace = '';
    try { trace = String(error && error.stack); } catch (failure) { return ''; }
    const prefix = root.endsWith('/') ? root : root + '/';
    for (const line of trace.split('\n')) {
      let at = line.indexOf(prefix);
      if (at < 0) continue;
      const rest = line.slice(at + prefix.length).replace(/^file:\/\//, '');
      const match = /^([^:()]+):(\d+)/.exec(rest);
      if (match) return `${match[1]}:${match[2]}`;
    }
    return '';
  }

  // Syntax errors: CommonJS files are compiled here, before the program starts, so a syntax error
  // in any of them stops the run with nothing executed (ES modules are all parsed by the loader
  // before any of them runs; their syntax errors are recognised in the exception monitor).
  let started = false;
  function compileError(error) {
    if (!(error instanceof SyntaxError)) return '';
    let header = '';
    try { header = String(error.stack).split('\n', 1)[0]; } catch (failure) { return ''; }
    const where = header.replace(/^file:\/\//, '');
    const prefix = root.endsWith('/') ? root : root + '/';
    // ES module parse errors carry no location at this point: Node prints it first on stderr
    if (!where.startsWith(prefix)) return `${error.name}: ${error.message}`;
    return `${where.slice(prefix.length)}: ${error.name}: ${error.message}`;
  }
  const cjsFiles = (process.env.TRACEEVAL_CJS || '').split('\n').filter(Boolean);
  if (cjsFiles.length) {
    const vm = require('vm');
    const parameters = ['exports', 'require', 'module', '__filename', '__dirname'];
    for (const file of cjsFiles) {
      let code;
      try { code = fs.readFileSync(file, 'utf8'); } catch (error) { continue; }
      if (code.startsWith('#!')) code = '//' + code.slice(2);
      try {
        vm.compileFunction(code, parameters, { filename: file });
      } catch (error) {
        const relative = file.startsWith(root + '/') ? file.slice(root.length + 1) : file;
        const line = /:(\d+)\s*$/.exec(String(error.stack).split('\n', 1)[0]);
        write(['W', `${COMPILE_ERROR}${relative}:${line ? line[1] : 0}: ${error.name}: ${error.message}`]);
        process.exit(1);
      }
    }
  }

  process.on('uncaughtExceptionMonitor', (error) => {
    const compile = started ? '' : compileError(error);
    if (compile) write(['W', `${COMPILE_ERROR}${compile}`]);
    else write(['X', describe(error)]);
  });
  process.on('exit', () => {
    for (const [key, count] of counts) {
      const [caller, callee, line] = key.split('\0');
      write(['C', caller, callee, Number(line), count]);
    }
    for (const [callee, count] of orphans) {
      write(['U', callee, 'entered with no program frame below it (a callback from Node internals)', count]);
    }
    counts.clear();
    orphans.clear();
  });

  traceChildProcesses(write);

  Object.defineProperty(globalThis, '__te', { value: te, writable: false, configurable: false, enumerable: false });
})();

// A child process's own log: `<pid>-<random>.jsonl`, created (never opened if it exists, never
// through a link) in the folder the sandbox hands in (tracers/child_processes.py).
function openChildLog(folder) {
  const fs = require('fs');
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_APPEND } = fs.constants;
  const name = `${process.pid}-${require('crypto').randomBytes(6).toString('hex')}.jsonl`;
  try {
    return fs.openSync(require('path').join(folder, name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND, 0o600);
  } catch (error) {
    return -1;
  }
}

// Child processes: every program started through `child_process` is logged (`S`, pid and argv) with
// how it ended (`Q`). A `node` child is traced as well: it inherits NODE_OPTIONS (`--require` this
// runtime, set by the tracer) or, for `fork`, execArgv; an explicit `env` gets the tracer's variables.
function traceChildProcesses(write) {
  const childProcess = require('child_process');
  const passed = ['NODE_OPTIONS', 'TRACEEVAL_ROOT', 'TRACEEVAL_CJS', 'TRACEEVAL_CHILD_LOGS'];
  let depth = 0; // exec calls execFile: only the outermost call is a program started
  const bounded = (argv) => argv.slice(0, 24).map((a) => String(a).slice(0, 200));
  const argvOf = {
    spawn: (a) => shellOr(a, [a[0], ...arrayAt(a, 1)]),
    spawnSync: (a) => shellOr(a, [a[0], ...arrayAt(a, 1)]),
    exec: (a) => ['/bin/sh', '-c', a[0]],
    execSync: (a) => ['/bin/sh', '-c', a[0]],
    execFile: (a) => [a[0], ...arrayAt(a, 1)],
    execFileSync: (a) => [a[0], ...arrayAt(a, 1)],
    fork: (a) => [process.execPath, a[0], ...arrayAt(a, 1)],
  };
  function arrayAt(args, index) { return Array.isArray(args[index]) ? args[index] : []; }
  function optionsOf(args) {
    for (let i = 1; i < args.length && i < 3; i++) {
      if (args[i] && typeof args[i] === 'object' && !Array.isArray(args[i])) return args[i];
    }
    return null;
  }
  function shellOr(args, argv) {
    const options = optionsOf(args);
    return options && options.shell ? ['/bin/sh', '-c', argv.join(' ')] : argv;
  }
  function passOn(args) {
    const options = optionsOf(args);
    if (!options || !options.env || typeof options.env !== 'object') return;
    for (const name of passed) {
      if (process.env[name] !== undefined && options.env[name] === undefined) options.env[name] = process.env[name];
    }
  }
  for (const name of Object.keys(argvOf)) {
    const original = childProcess[name];
    if (typeof original !== 'function') continue;
    const wrapped = {
      [name](...args) {
        if (depth > 0) return Reflect.apply(original, this, args);
        let argv = [];
        try { argv = bounded(argvOf[name](args)); passOn(args); } catch (error) { argv = [String(args[0])]; }
        depth++;
        let result;
        try {
          result = Reflect.apply(original, this, args);
        } catch (error) {
          write(['S', (error && error.pid) || 0, argv]);
          if (error && error.pid) write(['Q', error.pid, typeof error.status === 'number' ? error.status : null]);
          throw error;
        } finally {
          depth--;
        }
        if (name.endsWith('Sync')) {
          const pid = result && typeof result === 'object' && !Buffer.isBuffer(result) ? result.pid : 0;
          write(['S', pid || 0, argv]);
          if (pid) write(['Q', pid, typeof result.status === 'number' ? result.status : null]);
        } else if (result && typeof result.once === 'function') {
          const pid = result.pid || 0;
          write(['S', pid, argv]);
          if (pid) result.once('exit', (code) => write(['Q', pid, typeof code === 'number' ? code : null]));
        }
        return result;
      },
    }[name];
    childProcess[name] = wrapped;
  }
}
