// tapline's mocha reporter (src/harness/mocha/): TAP 14 for the one test file tapline's
// driver runs, a point per test as mocha reports it. A test's name is its titles from the
// outermost `describe` down, joined by " > ". A hook that fails is a point of its own
// (`"before each" hook for "x"`, with `hook:` in its YAML); a pending test is `# SKIP`.
'use strict';
const { FileTap } = require('./tap-common.cjs');

function fileOf(runnable) {
  for (let r = runnable; r; r = r.parent) if (r.file) return r.file;
  return '';
}

function nameOf(runnable) {
  return runnable.titlePath().filter(Boolean).join(' > ');
}

function TaplineReporter(runner) {
  let tap = null;
  const get = (runnable) => {
    if (!tap) tap = new FileTap(fileOf(runnable) || process.env.TAPLINE_MOCHA_FILE || '');
    return tap;
  };
  runner.once('start', () => {
    tap = new FileTap(process.env.TAPLINE_MOCHA_FILE || '');
    tap.start();
  });
  runner.on('pass', (t) => get(t).ok(nameOf(t)));
  runner.on('pending', (t) => get(t).ok(nameOf(t), 'SKIP'));
  runner.on('fail', (t, err) => {
    const extra = t.type === 'hook' ? { hook: t.title } : undefined;
    get(t).notOk(nameOf(t), err, extra);
  });
  runner.once('end', () => {
    (tap || new FileTap('')).end();
  });
}

module.exports = TaplineReporter;
