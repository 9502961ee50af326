// tapline's jest reporter (src/harness/jest/): TAP 14 for the one test file tapline's driver
// runs, a point per test. A test's name is its `describe` titles from the outermost down and
// its own, joined by " > " (with `[project] ` before it when the config has several projects
// and the test's has a displayName). The points are printed when jest reports the file done
// (onTestResult: once per project that runs it), then the file's console output as `# `
// comments; an error outside any test (the file does not load, an afterAll throws) is a
// failing point of its own; the plan when the run ends. (onTestCaseResult would print each
// test sooner, but jest tells it no skipped test, and with several projects the dedup by name
// it would need went wrong.)
'use strict';
const { FileTap, rel } = require('./tap-common.cjs');

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;
const clean = (s) => (typeof s === 'string' ? s.replace(ANSI, '') : s);

// A frame of no file (`new Promise (<anonymous>)`, jest-circus's wrapper round each test).
const NO_FILE = /^\s*at .*\(<anonymous>\)$/;
const FRAME = /^\s*at /;

// jest's matcher message is its hint, then its printing of the values (`Expected: 3` /
// `Received: 2`, or its diff under a `- Expected` / `+ Received` legend): tapline diffs the
// values themselves, so the hint and any other paragraph stay and jest's diff goes (the diff
// once).
function withoutValues(message) {
  const paragraphs = message.split(/\n[ \t]*\n/);
  const kept = [];
  for (let i = 0; i < paragraphs.length; i++) {
    const lines = paragraphs[i].split('\n');
    if (/^- Expected\b/.test(lines[0]) && /^\+ Received\b/.test(lines[1] || '')) {
      i += 1; // the legend, and the diff under it
      continue;
    }
    if (lines.every((l) => /^(Expected|Received): /.test(l))) continue;
    kept.push(paragraphs[i]);
  }
  return kept.join('\n\n');
}

// The error's stack as its class and first line over its frames: jest's stack repeats the
// whole message (values, diff) before them.
function stackOf(d, message) {
  const text = clean(d.stack || message || '');
  const lines = text.split('\n');
  const frames = lines.filter((l) => FRAME.test(l) && !NO_FILE.test(l));
  if (!frames.length) return text;
  const head = lines.find((l) => l.trim()) || '';
  return [FRAME.test(head) ? `${d.name || 'Error'}` : head, ...frames].join('\n');
}

// A failure as tap-common's YAML reads it. failureDetails[i] is the thrown error; expect()'s
// carries matcherResult (actual, expected, the matcher's name); jest maps its stack through
// the transform's source maps (TypeScript, babel).
function errOf(detail, message) {
  const d = detail && typeof detail === 'object' ? detail : {};
  const first = String(message || 'failed').split('\n')[0];
  const out = {
    message: clean(d.message !== undefined ? String(d.message) : first),
    stack: stackOf(d, message),
  };
  // A thrown error's class: its `name`, or its stack's head (jest sends the error without
  // its prototype's `name`).
  const named = d.name || (/^([A-Za-z_$][\w$]*(?:Error|Exception))\b/.exec(out.stack) || [])[1];
  if (named && named !== 'Error') out.name = named;
  if (d.code) out.code = d.code;
  const m = d.matcherResult;
  if (m && typeof m === 'object' && ('actual' in m || 'expected' in m)) {
    out.actual = m.actual;
    out.expected = m.expected;
    if (m.name) out.operator = m.name;
    out.message = withoutValues(out.message);
  } else if ('actual' in d || 'expected' in d) {
    out.actual = d.actual;
    out.expected = d.expected;
    if (d.operator) out.operator = d.operator;
    if (d.showDiff === false) out.showDiff = false;
  }
  return out;
}

function titleOf(r) {
  return [...(r.ancestorTitles || []), r.title].join(' > ');
}

class TaplineJestReporter {
  constructor(globalConfig) {
    this.tap = null;
    this.several = !!(globalConfig && Array.isArray(globalConfig.projects) && globalConfig.projects.length > 1);
  }

  file(path) {
    if (!this.tap) {
      this.tap = new FileTap(path);
      this.tap.start();
    }
    return this.tap;
  }

  prefix(test) {
    const shown = this.several && test && test.context && test.context.config && test.context.config.displayName;
    const name = shown && (typeof shown === 'string' ? shown : shown.name);
    return name ? `[${name}] ` : '';
  }

  point(tap, name, r) {
    if (r.status === 'passed') tap.ok(name);
    else if (r.status === 'failed') {
      // The first error is the point's; later ones (an afterEach's) ride along.
      const details = r.failureDetails || [];
      const messages = r.failureMessages || [];
      const more = messages.slice(1).map((m) => clean(String(m)).split('\n')[0]);
      tap.notOk(name, errOf(details[0], messages[0]), more.length ? { more_errors: more.join('\n') } : undefined);
    } else if (r.status === 'todo') tap.ok(name, 'TODO');
    else tap.ok(name, 'SKIP');
  }

  // The window in which the driver counts the files read as the test's (its trace).
  onTestStart() {
    const reads = globalThis[Symbol.for('tapline.jest.reads')];
    if (reads) reads.on = true;
  }

  onTestResult(test, result) {
    const reads = globalThis[Symbol.for('tapline.jest.reads')];
    if (reads) reads.on = false;
    const tap = this.file(result.testFilePath || test.path);
    const prefix = this.prefix(test);
    for (const r of result.testResults || []) this.point(tap, prefix + titleOf(r), r);
    for (const c of result.console || []) tap.comment(`console.${c.type}: ${clean(String(c.message))}`);
    const outside = `${prefix}${rel(result.testFilePath || test.path)} (outside any test)`;
    if (result.testExecError) {
      tap.notOk(outside, errOf(result.testExecError, result.failureMessage));
    } else if (result.failureMessage && !result.numFailingTests) {
      // A failure jest tells of no test (an afterAll hook's): the file fails with it.
      const text = clean(String(result.failureMessage)).trim();
      tap.notOk(outside, { message: text.split('\n').find((l) => l.trim()) || 'failed', stack: text });
    }
  }

  onRunComplete() {
    (this.tap || new FileTap('')).end();
  }

  getLastError() {
    return undefined;
  }
}

module.exports = TaplineJestReporter;
