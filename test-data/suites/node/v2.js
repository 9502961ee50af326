// tstest protocol v2 (protocol-spec/v2.md): the header, inline time markers, a META line and
// an ERROR block carrying the failure as JSON.
'use strict';
const assert = require('node:assert');

const out = (line) => process.stdout.write(line + '\n');
const tests = [
  ['adds numbers', () => assert.strictEqual(2 + 3, 5)],
  ['builds a config', () =>
    assert.deepStrictEqual({ port: 8080, host: 'localhost', tls: true },
      { port: 8080, host: 'localhost', tls: false })],
];
out('⟦TSTEST:PROTOCOL:2.0.0⟧');
out('TAP version 13');
out(`1..${tests.length}`);
tests.forEach(([name, fn], i) => {
  const start = process.hrtime.bigint();
  let error = null;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  const ms = Number((process.hrtime.bigint() - start) / 1000000n);
  out(`${error ? 'not ok' : 'ok'} ${i + 1} - ${name} ⟦TSTEST:time:${ms}⟧`);
  if (error) {
    process.exitCode = 1;
    out(`⟦TSTEST:META:${JSON.stringify({ time: ms, file: 'test-data/suites/node/v2.js', line: 10 })}⟧`);
    out('⟦TSTEST:ERROR⟧');
    out(JSON.stringify({
      error: {
        message: error.message.split('\n')[0],
        expected: error.expected,
        actual: error.actual,
        // The message line and the first frames: the report prints the stack as given.
        stack: [error.name + ': ' + error.message.split('\n')[0]]
          .concat(error.stack.split('\n').filter((l) => /^\s+at /.test(l)).slice(0, 3))
          .join('\n'),
      },
    }, null, 2));
    out('⟦TSTEST:/ERROR⟧');
  }
});
