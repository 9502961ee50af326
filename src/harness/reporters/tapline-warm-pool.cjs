// tapline's warm-worker protocol (src/run/worker/mod.rs), for the drivers of tapline's that
// serve the pool (mocha's, jest's, vitest's, ava's; src/harness/driver.rs): one JSON command a
// line on stdin per file ({"file", "env", "trace"}), the file run with its variables set, then
// the pool's end marker `⟦tapline-warm NONCE end CODE MICROS⟧` on stdout, and on stderr when
// they are two pipes. MICROS is the file's own time, which the worker's start is no part of.
'use strict';
const fs = require('fs');

const nonce = process.env.TAPLINE_WARM_NONCE || '';
const merged = process.env.TAPLINE_WARM_MERGED === '1';
// The tests never see the pool's variables.
delete process.env.TAPLINE_WARM_NONCE;
delete process.env.TAPLINE_WARM_MERGED;

function nap(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// The next command, read with a blocking read (nothing of the worker's holds the event loop
// between files); null at the end of stdin.
let pending = Buffer.alloc(0);
function readCommand() {
  const buf = Buffer.alloc(64 * 1024);
  for (;;) {
    const nl = pending.indexOf(10);
    if (nl >= 0) {
      const line = pending.subarray(0, nl).toString('utf8');
      pending = pending.subarray(nl + 1);
      return JSON.parse(line);
    }
    let n;
    try {
      n = fs.readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      if (e.code === 'EAGAIN') {
        nap(2);
        continue;
      }
      if (e.code === 'EOF') return null;
      throw e;
    }
    if (n === 0) return null;
    pending = Buffer.concat([pending, buf.subarray(0, n)]);
  }
}

// The commands read as stdin's events come, for a driver whose harness needs the event loop
// between files (a vite server's watchers): a function that resolves with the next one, or
// null at the end of stdin.
function commands() {
  let text = '';
  const waiting = [];
  const lines = [];
  let ended = false;
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    text += chunk;
    let nl;
    while ((nl = text.indexOf('\n')) >= 0) {
      lines.push(text.slice(0, nl));
      text = text.slice(nl + 1);
    }
    while (waiting.length && lines.length) waiting.shift()(JSON.parse(lines.shift()));
  });
  process.stdin.on('end', () => {
    ended = true;
    while (waiting.length) waiting.shift()(null);
  });
  return () =>
    new Promise((resolve) => {
      if (lines.length) resolve(JSON.parse(lines.shift()));
      else if (ended) resolve(null);
      else waiting.push(resolve);
    });
}

function writeAll(fd, text) {
  let bytes = Buffer.from(text, 'utf8');
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(fs.writeSync(fd, bytes));
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
      nap(2);
    }
  }
}

// Serves the pool's commands until stdin ends. `run(cmd)` runs `cmd.file` with `cmd.env` set
// and resolves with its exit code (a throw is exit 1, its error on stderr); `opts.next` reads
// the commands instead of `readCommand`; `opts.after(cmd, code)`, once the variables are
// restored, writes the trace or tidies up, and returns false when the file must end the
// worker with its code (the marker is then not written).
async function serve(run, opts = {}) {
  const next = opts.next || readCommand;
  for (;;) {
    const cmd = await next();
    if (!cmd) return;
    const saved = {};
    for (const [k, v] of Object.entries(cmd.env || {})) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    const began = process.hrtime.bigint();
    let code;
    try {
      code = await run(cmd);
    } catch (err) {
      console.error('\n Exception during run:', err);
      code = 1;
    }
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    const took = (process.hrtime.bigint() - began) / 1000n;
    if (opts.after && opts.after(cmd, code) === false) process.exit(code);
    const marker = '\u27e6tapline-warm ' + nonce + ' end ' + code + ' ' + took + '\u27e7\n';
    writeAll(1, marker);
    if (!merged) writeAll(2, marker);
  }
}

module.exports = { warm: nonce !== '', serve, commands, writeAll };
