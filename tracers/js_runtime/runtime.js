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
// - each (caller, callee, line) is written to the run's trace log the first time it is seen (`E`, written
//   at once so a killed run keeps it); exact counts (`C`) are written when the process exits, then the
//   closing record (`Z`); an uncaught exception or unhandled rejection is written as `X` without
//   changing Node's behaviour. The log's lines and their authentication are those of
//   tracers/python_runtime/log.py (`traceLog` below).
'use strict';
// The run's trace log (the lines of tracers/python_runtime/log.py): the FIFO `records` in $TRACEEVAL_LOG,
// one line a record, each tagged with HMAC-SHA256 of this process's key. The key comes before the program
// runs: from the supervisor's pipe (`fd:N`, the program's own process) or, for a traced child, from the
// supervisor's socket for the one-time ticket its parent gave it (`ticket:T`, asked by a helper node
// process, since Node cannot connect a socket synchronously); a worker thread gets its process's key in
// the environment its Worker is given (`hex:K`, a copy of this thread's: not the process's environment).
// The variables are removed from process.env. A worker thread writes a stream of its own (`LINEAGE@PID/T`).
function traceLog() {
  const fs = require('fs');
  const folder = process.env.TRACEEVAL_LOG;
  const lineage = process.env.TRACEEVAL_STREAM || '0';
  const keySpec = process.env.TRACEEVAL_KEY || '';
  const thread = process.env.TRACEEVAL_THREAD ? `/${require('worker_threads').threadId}` : '';
  delete process.env.TRACEEVAL_STREAM;
  delete process.env.TRACEEVAL_KEY;
  delete process.env.TRACEEVAL_THREAD;
  let fd = -1;
  if (folder) {
    try { fd = fs.openSync(`${folder}/records`, fs.constants.O_WRONLY); } catch (error) { fd = -1; }
  }
  const key = fd >= 0 ? logKey(keySpec, folder, lineage) : null;
  const tag = key ? tagOf(key) : null;
  const stream = `${lineage}@${process.pid}${thread}`;
  let seq = 0;
  let children = 0;
  let closed = false;

  function line(record) {
    const body = `${stream} ${seq++} ${JSON.stringify(record)}`;
    const bytes = Buffer.from(body, 'utf8');
    const text = `${tag ? tag(bytes) : '-'} ${body}\n`;
    if (Buffer.byteLength(text, 'utf8') <= 4096) return text;
    seq--;
    return line(['W', `a trace record of ${bytes.length} bytes was left out (over 4096 bytes a line)`]);
  }

  return {
    write(records) { // as few writes as fit 4096 bytes, each of whole lines
      if (fd < 0 || closed) return;
      let chunk = '';
      try {
        for (const record of records) {
          const next = line(record);
          if (Buffer.byteLength(chunk, 'utf8') + Buffer.byteLength(next, 'utf8') > 4096) {
            fs.writeSync(fd, chunk);
            chunk = '';
          }
          chunk += next;
        }
        if (chunk) fs.writeSync(fd, chunk);
      } catch (error) { /* the supervisor sees what is missing */ }
    },
    close() {
      closed = true;
      if (fd >= 0) try { fs.closeSync(fd); } catch (error) { /* gone already */ }
    },
    isThread: thread !== '',
    threadEnvironment() { // a worker thread's: this process's log, lineage and key
      const env = { TRACEEVAL_LOG: folder || '', TRACEEVAL_STREAM: lineage, TRACEEVAL_THREAD: '1' };
      if (key) env.TRACEEVAL_KEY = `hex:${key.toString('hex')}`;
      return env;
    },
    childEnvironment() { // a traced child's lineage and its one-time ticket
      children += 1;
      const component = `${process.pid}_${children}`;
      const env = { TRACEEVAL_LOG: folder || '', TRACEEVAL_STREAM: `${lineage}.${component}` };
      if (key) env.TRACEEVAL_KEY = `ticket:${tagOf(key)(Buffer.from(`ticket ${component}`))}`;
      return env;
    },
  };
}

function logKey(spec, folder, lineage) {
  const fs = require('fs');
  const colon = spec.indexOf(':');
  const kind = spec.slice(0, colon);
  const value = spec.slice(colon + 1);
  try {
    let text = '';
    if (kind === 'hex') {
      text = value;
    } else if (kind === 'fd') {
      const descriptor = Number(value);
      const buffer = Buffer.alloc(128);
      text = buffer.toString('ascii', 0, fs.readSync(descriptor, buffer, 0, 128, null));
      fs.closeSync(descriptor);
    } else if (kind === 'ticket') {
      const ask = "const s=require('net').connect(process.argv[1]);let r='';process.stdin.on('data',(d)=>{r+=d;})" +
        ".on('end',()=>s.end(r));s.pipe(process.stdout);s.on('error',()=>process.exit(1));";
      text = require('child_process').spawnSync(process.execPath, ['-e', ask, `${folder}/keys`], {
        input: `${lineage} ${value}\n`, env: {}, encoding: 'ascii', timeout: 10000,
        stdio: ['pipe', 'pipe', 'ignore'] }).stdout || '';
    }
    text = text.trim();
    return /^[0-9a-f]{64}$/.test(text) ? Buffer.from(text, 'hex') : null;
  } catch (error) {
    return null;
  }
}

// At most 24 arguments of at most 200 characters and 2000 in all, so that the record fits one line.
function boundedArgv(argv) {
  const kept = [];
  let size = 0;
  for (const argument of argv.slice(0, 24)) {
    const text = String(argument).slice(0, 200);
    size += text.length + 3;
    if (size > 2000) break;
    kept.push(text);
  }
  return kept;
}

// HMAC-SHA256 (RFC 2104) with one key, its pads compressed once: `tagOf(key)(bytes)` is the hex of the first 16
// bytes of the digest. SHA-256 is written out because loading `crypto` costs every traced program about 4 ms; its
// buffers are reused (a traced program's first records run in the interpreter, where allocations count).
const SHA_K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]);
const SHA_START = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
const SHA_W = new Int32Array(64);
const SHA_H = new Int32Array(8);
let shaData = new Uint8Array(4224); // a line (4096 bytes) and its padding
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function shaBlock(h, bytes, at) {
  const w = SHA_W;
  for (let i = 0; i < 16; i++, at += 4) w[i] = (bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3];
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15];
    const y = w[i - 2];
    w[i] = (w[i - 16] + (((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)) + w[i - 7] +
            (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10))) | 0;
  }
  let a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (let i = 0; i < 64; i++) {
    const t1 = (k + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
                ((e & f) ^ (~e & g)) + SHA_K[i] + w[i]) | 0;
    const t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
                ((a & b) ^ (a & c) ^ (b & c))) | 0;
    k = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
  }
  h[0] = (h[0] + a) | 0; h[1] = (h[1] + b) | 0; h[2] = (h[2] + c) | 0; h[3] = (h[3] + d) | 0;
  h[4] = (h[4] + e) | 0; h[5] = (h[5] + f) | 0; h[6] = (h[6] + g) | 0; h[7] = (h[7] + k) | 0;
}

function shaAfterPad(state, message) { // SHA-256 of a 64-byte block already in `state`, then `message`: in SHA_H
  const size = ((message.length + 9 + 63) >> 6) << 6;
  if (shaData.length < size) shaData = new Uint8Array(size);
  const data = shaData;
  data.set(message);
  data.fill(0, message.length, size);
  data[message.length] = 0x80;
  const bits = (64 + message.length) * 8; // messages are far below 2^29 bytes
  data[size - 4] = bits >>> 24; data[size - 3] = bits >>> 16; data[size - 2] = bits >>> 8; data[size - 1] = bits;
  SHA_H.set(state);
  for (let at = 0; at < size; at += 64) shaBlock(SHA_H, data, at);
}

function tagOf(key) {
  const inner = new Int32Array(SHA_START);
  const outer = new Int32Array(SHA_START);
  const innerPad = new Uint8Array(64);
  const outerPad = new Uint8Array(64);
  for (let i = 0; i < 64; i++) {
    const byte = i < key.length ? key[i] : 0;
    innerPad[i] = byte ^ 0x36;
    outerPad[i] = byte ^ 0x5c;
  }
  shaBlock(inner, innerPad, 0);
  shaBlock(outer, outerPad, 0);
  const digest = new Uint8Array(32);
  return (message) => {
    shaAfterPad(inner, message);
    for (let i = 0; i < 8; i++) {
      const word = SHA_H[i];
      digest[i * 4] = word >>> 24; digest[i * 4 + 1] = word >>> 16; digest[i * 4 + 2] = word >>> 8; digest[i * 4 + 3] = word;
    }
    shaAfterPad(outer, digest);
    let hex = '';
    for (let i = 0; i < 4; i++) {
      const word = SHA_H[i];
      hex += HEX[(word >>> 24) & 255] + HEX[(word >>> 16) & 255] + HEX[(word >>> 8) & 255] + HEX[word & 255];
    }
    return hex;
  };
}

(function installTraceEvalRuntime() {
  const fs = require('fs');
  const root = process.env.TRACEEVAL_ROOT || process.cwd();
  const log = traceLog();
  const write = (record) => log.write([record]);
  if (!log.isThread) write(['P', 'javascript', process.pid, boundedArgv(process.argv)]);

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
        write(['W', `${COMPILE_ERROR}${relative}:${line ? line[1] : 0}: ${error.name}: ${error.message}`.slice(0, 1000)]);
        process.exit(1);
      }
    }
  }

  process.on('uncaughtExceptionMonitor', (error) => {
    const compile = started ? '' : compileError(error);
    if (compile) write(['W', `${COMPILE_ERROR}${compile}`.slice(0, 1000)]);
    else write(['X', describe(error).slice(0, 1000)]);
  });
  process.on('exit', () => {
    const records = [];
    for (const [key, count] of counts) {
      const [caller, callee, line] = key.split('\0');
      records.push(['C', caller, callee, Number(line), count]);
    }
    for (const [callee, count] of orphans) {
      records.push(['U', callee, 'entered with no program frame below it (a callback from Node internals)', count]);
    }
    records.push(['Z']);
    log.write(records);
    log.close();
    counts.clear();
    orphans.clear();
  });

  traceChildProcesses(write, log);
  traceWorkerThreads(log);

  Object.defineProperty(globalThis, '__te', { value: te, writable: false, configurable: false, enumerable: false });
})();

// Worker threads load this runtime too (NODE_OPTIONS): each gets its process's key through the environment
// of a copy of its Worker's options (a Worker sharing this thread's environment, SHARE_ENV, gets none).
function traceWorkerThreads(log) {
  const threads = require('worker_threads');
  const Original = threads.Worker;
  if (typeof Original !== 'function') return;
  threads.Worker = class Worker extends Original {
    constructor(filename, options) {
      let given = options;
      const env = options && options.env;
      if (env !== threads.SHARE_ENV) {
        given = { ...(options || {}), env: { ...(env && typeof env === 'object' ? env : process.env),
          ...log.threadEnvironment() } };
      }
      super(filename, given);
    }
  };
}

// Child processes: every program started through `child_process` is logged (`S`, pid and argv) with
// how it ended (`Q`). A `node` child is traced as well: it inherits NODE_OPTIONS (`--require` this
// runtime, set by the tracer) or, for `fork`, execArgv; an explicit `env` gets the tracer's variables.
// A child that runs node itself (`fork`, or node named as the command) gets its lineage and a one-time
// ticket for its key, in a copy of the call's options (the program's own options are not changed); a
// node started through a shell has no key, and its records are not used.
function traceChildProcesses(write, log) {
  const childProcess = require('child_process');
  const path = require('path');
  const passed = ['NODE_OPTIONS', 'TRACEEVAL_ROOT', 'TRACEEVAL_CJS', 'TRACEEVAL_LOG'];
  let depth = 0; // exec calls execFile: only the outermost call is a program started
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
  function optionsAt(name, args) {
    if (name === 'exec' || name === 'execSync') return 1;
    return Array.isArray(args[1]) || (args[1] == null && args.length > 2) ? 2 : 1;
  }
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
  function runsNode(name, args) {
    if (name === 'fork') return true;
    if (name === 'exec' || name === 'execSync' || typeof args[0] !== 'string') return false;
    const options = optionsOf(args);
    return !(options && options.shell) && (args[0] === process.execPath || ['node', 'nodejs'].includes(path.basename(args[0])));
  }
  function withEnvironment(name, args) { // the call's arguments, with the tracer's variables in a copy of its options
    const at = optionsAt(name, args);
    const given = args[at];
    const options = given && typeof given === 'object' && !Array.isArray(given) ? given : null;
    const traced = runsNode(name, args);
    if (!traced && !(options && options.env && typeof options.env === 'object')) return args; // process.env is passed on
    const env = { ...(options && options.env && typeof options.env === 'object' ? options.env : process.env) };
    for (const variable of passed) {
      if (process.env[variable] !== undefined && env[variable] === undefined) env[variable] = process.env[variable];
    }
    if (traced) Object.assign(env, log.childEnvironment());
    const copy = args.slice();
    if (options) copy[at] = { ...options, env };
    else if (typeof given === 'function') copy.splice(at, 0, { env });
    else copy[at] = { env };
    return copy;
  }
  for (const name of Object.keys(argvOf)) {
    const original = childProcess[name];
    if (typeof original !== 'function') continue;
    const wrapped = {
      [name](...args) {
        if (depth > 0) return Reflect.apply(original, this, args);
        let argv = [];
        let started = args;
        try { argv = boundedArgv(argvOf[name](args)); started = withEnvironment(name, args); } catch (error) {
          argv = [String(args[0]).slice(0, 80)];
        }
        depth++;
        let result;
        try {
          result = Reflect.apply(original, this, started);
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
