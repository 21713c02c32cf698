"""The JavaScript instrumenter: valid code, same line numbers, every function named, same behaviour."""
import subprocess
from pathlib import Path

import pytest

from core.symbols import extract_symbols
from core.symbols.parsing import Source, first_error_line
from tests.tracers.test_javascript_tracer import trace_source
from tracers.javascript import TRACER, write_instrumented
from tracers.js_instrument import instrument

ROOT = Path(__file__).parents[2]
PROGRAMS = sorted(
    [p for p in (ROOT / "tests" / "tracer_corpus" / "javascript").iterdir() if p.name != "syntax_error"]
    + [p for p in (ROOT / "resources" / "demo" / "benchmark" / "javascript").iterdir() if p.is_dir()])

needs_node = pytest.mark.skipif(not TRACER.check().ok, reason="Node.js 18+ is not available")


def sources(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): p.read_text() for p in sorted(folder.rglob("*"))
            if p.suffix in (".js", ".mjs", ".cjs")}


@pytest.mark.parametrize("folder", PROGRAMS, ids=lambda p: p.name)
def test_instrumented_files_parse_cleanly_and_keep_every_line(folder, tmp_path):
    files = sources(folder)
    table = extract_symbols("javascript", files)
    for path in files:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    assert write_instrumented(tmp_path, files, table) == []  # every function has its node
    for path, text in files.items():
        result = (tmp_path / path).read_text()
        assert first_error_line(Source.parse("javascript", path, result).tree.root_node) is None, path
        original_lines, new_lines = text.splitlines(), result.splitlines()
        assert len(new_lines) == len(original_lines) + 1  # one line of module epilogue at the end
        for before, after in zip(original_lines, new_lines):  # insertions only, on the same line
            assert _is_subsequence(before, after), (path, before, after)


def _is_subsequence(short: str, long: str) -> bool:
    letters = iter(long)
    return all(letter in letters for letter in short)


def test_functions_without_a_symbol_node_are_named_by_position():
    result = instrument("main.js", "function f() { return 1; }\n", "main", {})
    assert result.unnamed == ["main:1:0"] and result.functions == 1


TRICKY = r"""'use strict';
const out = [];
const log = (...a) => out.push(a.join(' '));
class Base {
  static count = 0;
  static { Base.count = init(); }
  #p = 1;
  constructor(x) { this.x = x; log('base', new.target.name); }
  get val() { return this.x + this.#p; }
  set val(v) { this.x = v; }
  m() { return 'base-m'; }
  async am() { await null; return this.m(); }
}
function init() { return 5; }
class Derived extends Base {
  constructor(x) {
    const y = x * 2;
    super(y);
    this.z = (() => super.m())();
  }
  m() { return 'derived-' + super.m(); }
}
const d = new Derived(2);
log(d.val, d.z, d.m(), Base.count);
d.val = 10; log(d.val);
const o = { a: { b() { return { c: () => 'chain' }; } }, n: null };
log(o.a.b().c(), o.n?.x(), o.n?.m?.(), o.a?.b?.().c());
function* g() { const r = yield 1; log('got', r); try { yield 2; } finally { log('cleanup'); } }
const it = g(); log(it.next().value, it.next('R').value); it.return(); log(JSON.stringify(it.next()));
const s = new Set; log(s.size);
async function main() {
  log(await d.am());
  const vals = await Promise.all([1, 2].map(async (x) => { await null; return x * 3; }));
  log(vals.join(','));
  for await (const v of (async function* () { yield 'a'; yield 'b'; })()) { if (v === 'b') break; log(v); }
  lbl: for await (const v of [Promise.resolve(1), 2]) { log('fa', v); continue lbl; }
  try { await Promise.reject(new Error('rej')); } catch (e) { log(e.message); }
  const fn = function () { return arguments.length; };
  log(fn(), fn(1, 2), fn(...[1, 2, 3]));
  log(typeof require, typeof module, (function () { return this; })() === undefined);
  await new Promise((r) => setTimeout(r, 1));
  const arr = [3, 1, 2].sort((a, b) => a - b); log(arr);
  log(`${[1, 2].map(function (x) { return x + 1; })}`);
  const t = (strs, ...v) => strs.raw.join('-') + v.join('+');
  log(t`x${1}y${2}z`);
  if (true) for await (const v of [1]) log('if-fa', v); else log('no');
  const err = new Error('where');
  log(err.stack.split('\n')[1].trim().replace(/^.*\//, ''));
}
main().then(() => console.log(out.join('\n')));
"""


@needs_node
def test_an_instrumented_program_behaves_like_the_original(tmp_path):
    (tmp_path / "orig.js").write_text(TRICKY)
    plain = subprocess.run(["node", "orig.js"], cwd=tmp_path, capture_output=True, text=True, timeout=30, check=False)
    run = trace_source(tmp_path, {"main.js": TRICKY})
    assert run.status == "ok", run.stderr_tail
    assert run.stdout_tail == plain.stdout.replace("orig.js", "main.js")
    assert "main.js:47:" in run.stdout_tail  # stack traces keep line numbers
    assert not run.unresolved  # every callback found its program frame, also after await and catch
    edges = {e.edge for e in run.edges}
    assert {("main.main", "main.main.fn"), ("main.main", "main.<arrow5>"), ("main", "main.init"),
            ("main.Derived.constructor", "main.Base.constructor"), ("main.Base.am", "main.Derived.m"),
            ("main.main", "main.<anonymous1>"), ("main", "main.Base.val")} <= edges


@needs_node
def test_top_level_await_in_an_es_module(tmp_path):
    run = trace_source(tmp_path, {
        "package.json": '{"type": "module"}',
        "main.js": "import { later } from './lib.js';\nconst v = await later(1);\nfunction show(x) { return x; }\n"
                   "show(v);\n",
        "lib.js": "export async function later(x) {\n  await null;\n  return twice(x);\n}\n"
                  "function twice(x) { return 2 * x; }\n"})
    assert run.status == "ok", run.stderr_tail
    assert {e.edge for e in run.edges} == {("main", "lib.later"), ("lib.later", "lib.twice"), ("main", "main.show")}


FIELDS = r"""'use strict';
const out = [];
class Base { greet() { return 'hi'; } }
function seed(v) { return v; }
function done() { return out.length; }
class A {
  h = () => 1;
  f = function () {};
  g = (function () {});
  c = class {};
  self = this.constructor.name;
  n = seed(2) + this.h();
  'constructor'() { out.push(this.h.name, this.f.name, this.g.name, this.c.name, this.self, this.n); }
}
class B extends Base {
  s = super.greet();
  constructor() { super(); out.push(this.s); }
}
class C { bad = seed(null).x; constructor() { out.push('never'); } }
function make() {
  new A();
  new B();
  try { new C(); } catch (e) { out.push(e.constructor.name); }
  return done();
}
make(); make();
console.log(out.join(','));
"""


@needs_node
def test_field_initialisers_run_in_their_constructors_frame_and_behave_as_before(tmp_path):
    (tmp_path / "orig.js").write_text(FIELDS)
    plain = subprocess.run(["node", "orig.js"], cwd=tmp_path, capture_output=True, text=True, timeout=30, check=False)
    assert plain.stdout.startswith("h,f,g,c,A,3,hi,TypeError,")  # names inferred, `this` and `super` as usual
    run = trace_source(tmp_path, {"main.js": FIELDS})
    assert run.status == "ok", run.stderr_tail
    assert run.stdout_tail == plain.stdout
    evidence = {e.edge: e for e in run.edges}
    assert set(evidence) == {
        ("main", "main.make"), ("main.make", "main.A.constructor"), ("main.A.constructor", "main.seed"),
        ("main.A.constructor", "main.<arrow1>"), ("main.make", "main.B.constructor"),
        ("main.B.constructor", "main.Base.greet"), ("main.make", "main.C.constructor"),
        ("main.C.constructor", "main.seed"), ("main.make", "main.done")}
    constructed = evidence[("main.make", "main.A.constructor")]
    assert constructed.count == 2 and constructed.lines == (21,)  # once per `new`, at its line
    assert evidence[("main.make", "main.done")].lines == (24,)  # a throwing field left the stack clean
