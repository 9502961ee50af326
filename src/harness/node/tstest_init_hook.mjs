// tapline's 00init hook (src/harness/node/tstest.rs), imported with node's --import before a test
// file: it runs the folder's init module in the test's own process, first, as tstest does.
// An init that throws fails the file: a failing test point names it and its error (not a
// `Bail out!`, which would stop the whole run), its stack goes to stderr.
import { pathToFileURL } from 'node:url';
import { writeSync } from 'node:fs';

const init = process.env.TAPLINE_INIT;
const shown = process.env.TAPLINE_INIT_NAME || init;
// The test's own node subprocesses inherit the environment, not this --import.
delete process.env.TAPLINE_INIT;
delete process.env.TAPLINE_INIT_NAME;
if (init) {
  try {
    await import(pathToFileURL(init).href);
  } catch (e) {
    const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    writeSync(1, `not ok 1 - ${shown} failed: ${message.split('\n')[0]}\n1..1\n`);
    writeSync(2, `${(e && e.stack) || message}\n`);
    process.exit(1);
  }
}
