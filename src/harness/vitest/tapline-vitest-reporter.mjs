// tapline's vitest reporter (src/harness/vitest/): TAP 14 for the one test file tapline's
// driver runs, a point per test as vitest reports it, printed whole when the run ends (the
// file's block, so vitest's own output of the run never lands inside it).
//
// A test's name is vitest's full name (`describe > it`); `it.skip` is `# SKIP` (with its
// note), `it.todo` `# TODO`; tests `-t` (testNamePattern) leaves out are left out, not
// skipped. An error outside any test (the file failed to load, a file-level hook) is a point
// `<file> (outside any test)`, an unhandled error of the run a point `unhandled error`. With
// vitest `projects`, a file that runs in two or more of them has each point's name led by
// `[project] `. Tests' console output goes to stderr, as output of the file's.
//
// vitest >= 3 reports test modules (onTestRunEnd); vitest 1-2 a task tree (onFinished).
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { FileTap, Printed, rel } = require('./tap-common.cjs');

// The driver's stdout, where only TAP goes (its own process.stdout is sent to stderr).
const out = (text) => (globalThis.__taplineVitestOut || ((t) => process.stdout.write(t)))(text);

const ANSI = /\u001b\[[0-9;]*m/g;
const plain = (s) => (typeof s === 'string' ? s.replace(ANSI, '') : s);

// vitest prints a compared value with pretty-format, which names a plain object and array
// (`Object {`, `Array [`) where JavaScript's literal does not: those names go (outside
// strings), so the text reads as the value it prints.
const PRETTY = /"(?:[^"\\]|\\.)*"|\b(?:Object|Array) (?=[{[])/g;
const literal = (text) => String(text).replace(PRETTY, (m) => (m.startsWith('"') ? m : ''));

// One compared value as vitest printed it. vitest sends a string as the string itself and any
// other value as its printing, so `'3'` and `3` both come as `3`: its diff tells them apart,
// quoting a string on its `Expected: "…"` / `Received: "…"` line.
function printedSide(value, diff, side) {
  const text = plain(value);
  if (typeof text !== 'string') return new Printed(String(text));
  const line = new RegExp(`^${side}: (.*)$`, 'm').exec(diff);
  if (line && line[1] === JSON.stringify(text)) return new Printed(line[1]);
  return new Printed(literal(text));
}

// A frame of no file (`new Promise (<anonymous>)`, the runner's wrapper round each test).
const NO_FILE = /^\s*at .*\(<anonymous>\)$/;

// vitest's serialized error: message, name, actual/expected (the texts of its own
// serializer: the values as printed), and its stack already mapped to the source
// (TypeScript) in `stacks`.
function errOf(e) {
  if (!e) return { message: 'failed' };
  const out = { message: plain(e.message), name: e.name };
  let stack = e.stack || e.stackStr || '';
  if (Array.isArray(e.stacks) && e.stacks.length) {
    const frames = e.stacks.map((f) => `    at ${f.method || '<anonymous>'} (${f.file}:${f.line}:${f.column})`);
    stack = `${e.name || 'Error'}: ${out.message}\n${frames.join('\n')}`;
  }
  if (stack) out.stack = plain(stack).split('\n').filter((l) => !NO_FILE.test(l)).join('\n');
  if ('actual' in e || 'expected' in e) {
    const diff = plain(e.diff || '');
    out.actual = printedSide(e.actual, diff, 'Received');
    out.expected = printedSide(e.expected, diff, 'Expected');
  }
  if (e.showDiff === false) out.showDiff = false;
  return out;
}

function more(errors) {
  return errors.length ? { more_errors: errors.map((e) => plain(e.message)).join('\n') } : undefined;
}

export default class TaplineReporter {
  constructor() {
    this.file = process.env.TAPLINE_VITEST_FILE || '';
    this.pattern = null;
    this.modern = false;
  }

  onInit(ctx) {
    const p = ctx && ctx.config && ctx.config.testNamePattern;
    this.pattern = p ? new RegExp(p) : null;
  }

  // Whether `-t` keeps the test named `names` (vitest matches the names joined by a space).
  kept(names) {
    return !this.pattern || this.pattern.test(names.join(' '));
  }

  onUserConsoleLog(log) {
    if (log && typeof log.content === 'string') process.stderr.write(log.content);
  }

  onTestRunEnd(modules, errors) {
    this.modern = true;
    const mine = (modules || []).filter((m) => this.mine(m.moduleId));
    const tap = new Tap(this.file);
    const projects = new Set(mine.map((m) => (m.project && m.project.name) || ''));
    for (const mod of mine) {
      const lead = projects.size > 1 ? `[${(mod.project && mod.project.name) || ''}] ` : '';
      this.module(tap, mod, lead);
    }
    for (const e of errors || []) tap.notOk('unhandled error', errOf(e));
    out(tap.text());
  }

  // Whether vitest's module id is the file tapline runs (a filter is a substring of paths).
  mine(id) {
    return !this.file || path.resolve(String(id)) === path.resolve(this.file);
  }

  module(tap, mod, lead) {
    for (const t of mod.children.allTests()) {
      const names = fullNames(t);
      if (!this.kept(names)) continue;
      const r = t.result();
      const name = lead + t.fullName;
      if (r.state === 'passed') tap.ok(name);
      else if (r.state === 'failed') {
        const [first, ...rest] = r.errors || [];
        tap.notOk(name, errOf(first), more(rest));
      } else if (t.options && t.options.mode === 'todo') tap.ok(name, 'TODO');
      else tap.ok(name, r.note ? `SKIP ${r.note}` : 'SKIP');
    }
    const errors = typeof mod.errors === 'function' ? mod.errors() : [];
    for (const e of errors) tap.notOk(`${lead}${rel(mod.moduleId)} (outside any test)`, errOf(e));
  }

  // vitest 1-2: a task tree per file.
  onFinished(files, errors) {
    if (this.modern) return;
    const tap = new Tap(this.file);
    for (const file of (files || []).filter((f) => this.mine(f.filepath))) {
      const walk = (task, names) => {
        const here = [...names, task.name];
        if (task.type === 'suite') {
          for (const c of task.tasks) walk(c, here);
          return;
        }
        if (!this.kept(here)) return;
        const st = task.result && task.result.state;
        const name = here.join(' > ');
        if (st === 'pass') tap.ok(name);
        else if (st === 'fail') tap.notOk(name, errOf(task.result.errors && task.result.errors[0]));
        else tap.ok(name, task.mode === 'todo' ? 'TODO' : 'SKIP');
      };
      for (const c of file.tasks) walk(c, []);
      const failed = file.result && file.result.state === 'fail';
      if (failed && file.result.errors && file.result.errors.length) {
        tap.notOk(`${rel(file.filepath)} (outside any test)`, errOf(file.result.errors[0]));
      }
    }
    for (const e of errors || []) tap.notOk('unhandled error', errOf(e));
    out(tap.text());
  }
}

// A test's names from the outermost describe down.
function fullNames(t) {
  const names = [t.name];
  for (let p = t.parent; p && p.type === 'suite'; p = p.parent) names.unshift(p.name);
  return names;
}

// The file's TAP, kept until the run ends.
class Tap extends FileTap {
  constructor(file) {
    let buf = '';
    super(file, (text) => {
      buf += text;
    });
    this.buffered = () => buf;
  }
  text() {
    this.end();
    return this.buffered();
  }
}
