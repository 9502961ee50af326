// tapline's harness reporters' shared part (src/harness/reporters/): the TAP 14 a reporter of
// tapline's own prints for one test file, written as the harness reports each test, and the
// YAML block of a failure. No dependencies: the reporters are loaded from tapline's hooks
// folder into the project's own harness.
//
// A failure's YAML: `message`, `name` (the error's class or code), `found`/`wanted` (the
// error's `actual`/`expected` as JavaScript prints them, util.inspect's literal or the
// harness's own printing, with `repr: js` saying so: `2` is a number and `'2'` a string,
// which a YAML scalar could not tell; unless the error says `showDiff: false`), `compare` (assert's
// operator), `at` (absolute file:line:column: the first stack frame in the test file itself, else the
// first outside node's internals and node_modules) and `stack` (without those frames).
'use strict';
const path = require('path');
const util = require('util');
const url = require('url');

function toPath(file) {
  const f = String(file || '');
  if (!f.startsWith('file://')) return f;
  try {
    return url.fileURLToPath(f);
  } catch (_) {
    return f;
  }
}

// `file` from the cwd, with '/' separators.
function rel(file) {
  if (!file) return '';
  return path.relative(process.cwd(), toPath(file)).split(path.sep).join('/');
}

// A TAP description holds no newline, and `#` would start a directive.
function desc(s) {
  return String(s).replace(/\r?\n/g, ' ').replace(/\\/g, '\\\\').replace(/#/g, '\\#');
}

function scalar(v) {
  const s = typeof v === 'string' ? v : util.inspect(v, { depth: 6, breakLength: Infinity });
  if (s.includes('\n')) return '|-\n' + s.split('\n').map((l) => '  ' + l).join('\n');
  return JSON.stringify(s);
}

// A value the harness printed already (vitest's serializer sends its text, not the value):
// written as that text.
class Printed {
  constructor(text) {
    this.text = String(text);
  }
}

// A compared value as JavaScript prints it, whole: nothing cut at a depth or a length, so the
// text reads back as the value.
function printed(v) {
  if (v instanceof Printed) return v.text;
  return util.inspect(v, { depth: 20, breakLength: Infinity, maxArrayLength: Infinity, maxStringLength: Infinity });
}

const FRAME = /^\s*at (?:.*? \()?(.+?):(\d+):(\d+)\)?$/;

// The failure's place: the first frame in the test file itself, else the first outside
// node's internals and node_modules; '' when the stack names none.
function location(stack, file) {
  const frames = [];
  for (const line of String(stack || '').split('\n')) {
    const m = FRAME.exec(line);
    if (!m) continue;
    const p = toPath(m[1]);
    if (p.startsWith('node:') || p.startsWith('internal/')) continue;
    // Absolute, as tape and node:test print theirs: tapline shows it from where it runs,
    // which is not this process's cwd when the file runs in a workspace's package.
    frames.push({ p, at: `${path.resolve(p)}:${m[2]}:${m[3]}` });
  }
  const own = file ? path.resolve(toPath(file)) : '';
  const mine = frames.find((f) => path.resolve(f.p) === own);
  if (mine) return mine.at;
  const user = frames.find((f) => !f.p.includes(`${path.sep}node_modules${path.sep}`));
  return user ? user.at : '';
}

// A stack without the frames of node's internals and node_modules (the harness's own).
function trimStack(stack) {
  return String(stack)
    .split('\n')
    .filter((l) => !/^\s*at /.test(l) || !/node_modules|\(node:|at node:|\(internal\//.test(l))
    .join('\n');
}

// The YAML block of a failure, indented for a top-level point.
function yaml(err, file, extra) {
  const e = err || {};
  const lines = ['  ---'];
  const put = (k, v) => lines.push(`  ${k}: ${scalar(v)}`.replace(/\n/g, '\n  '));
  put('message', e.message !== undefined ? String(e.message) : String(e));
  if (e.name || e.code) put('name', e.code && e.name === 'Error' ? e.code : e.name || e.code);
  if (typeof e === 'object' && ('actual' in e || 'expected' in e)) {
    if (e.showDiff !== false) {
      put('found', printed(e.actual));
      put('wanted', printed(e.expected));
      put('repr', 'js');
    }
    if (e.operator) put('compare', e.operator);
  }
  for (const [k, v] of Object.entries(extra || {})) put(k, v);
  const at = location(e.stack, file);
  if (at) put('at', at);
  if (e.stack) put('stack', trimStack(e.stack));
  lines.push('  ...');
  return lines.join('\n');
}

// One test file's TAP, written as it goes: the version line, a point per test, the plan.
class FileTap {
  constructor(file, write) {
    this.file = file;
    this.write = write || ((text) => process.stdout.write(text));
    this.n = 0;
    this.started = false;
  }
  start() {
    if (this.started) return;
    this.started = true;
    this.write('TAP version 14\n');
  }
  ok(name, directive) {
    this.start();
    this.n += 1;
    this.write(`ok ${this.n} - ${desc(name)}${directive ? ' # ' + directive : ''}\n`);
  }
  notOk(name, err, extra) {
    this.start();
    this.n += 1;
    this.write(`not ok ${this.n} - ${desc(name)}\n${yaml(err, this.file, extra)}\n`);
  }
  // A comment line per line of `text` (a test's console output), between the points.
  comment(text) {
    this.start();
    const lines = String(text).replace(/\r?\n$/, '').split(/\r?\n/);
    this.write(lines.map((l) => (l ? `# ${l}` : '#') + '\n').join(''));
  }
  end() {
    this.start();
    this.write(`1..${this.n}\n`);
  }
}

module.exports = { rel, desc, yaml, location, FileTap, Printed };
