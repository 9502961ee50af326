// tapline's vitest driver (src/harness/vitest/mod.rs): runs one test file of a project through
// the project's own vitest, with the flags of its test script and its configuration
// (vitest.config.*, vite.config.*, `projects`), printing TAP through tapline's reporter.
//
//   node tapline-vitest.mjs run FLAGS... -- FILE   FILE alone, as the script's vitest runs it
//   node tapline-vitest.mjs serial FLAGS...        the option of the resolved configuration
//                                                  (its projects' too) that runs files one
//                                                  after another, if one does
//
// FLAGS are the script's words after `vitest` (`run --typecheck --project x`), read by
// vitest's own parser. vitest takes files on its command line as substring filters
// (`math` runs `mathx.test.ts` too), so the driver asks vitest for the test specifications of
// exactly FILE (one per project that includes it) and runs those. Coverage and watch are off:
// tapline runs one file, and reads no coverage report of vitest's.
// With TAPLINE_WARM_NONCE set, `run` is tapline's warm worker (src/run/worker): one vitest
// (its vite server and config) runs one JSON command a line from stdin ({"file", "env"}),
// each ended by the pool's marker `⟦tapline-warm NONCE end CODE MICROS⟧` on stdout and
// stderr (stdout only when they are one pipe). A file's exit code is vitest's: 1 when a test
// failed or an error was not handled, else 0.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import pool from './tapline-warm-pool.cjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const cwd = process.cwd();
const [mode, ...rest] = process.argv.slice(2);
const dash = rest.lastIndexOf('--');
const flags = dash < 0 ? rest : rest.slice(0, dash);
const operand = dash < 0 ? null : rest[dash + 1];

function die(message, code) {
  process.stderr.write(`tapline: ${message}\n`);
  process.exit(code);
}

// The project's own vitest: its folder, found as node finds a package from the cwd.
function vitestHome() {
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    const home = path.join(dir, 'node_modules', 'vitest');
    if (fs.existsSync(path.join(home, 'package.json'))) return home;
    if (path.dirname(dir) === dir) return null;
  }
}

// vitest/node, by its package's own exports.
async function vitestNode() {
  const home = vitestHome();
  if (!home) die(`vitest is not installed in ${cwd} (npm install)`, 127);
  const pkg = JSON.parse(fs.readFileSync(path.join(home, 'package.json'), 'utf8'));
  const entry = (pkg.exports && pkg.exports['./node']) || './dist/node.js';
  const file = typeof entry === 'string' ? entry : entry.import || entry.default;
  const target = typeof file === 'string' ? file : file && file.default;
  return import(pathToFileURL(path.join(home, target)).href);
}

// The options the script's flags give, as vitest's CLI reads them, for a run of one file.
function options(api) {
  const words = ['vitest', ...flags];
  const first = flags.find((w) => !w.startsWith('-'));
  if (first === undefined || !['run', 'watch', 'dev'].includes(first)) words.splice(1, 0, 'run');
  const { options: got } = api.parseCLI(words);
  if (got.exclude) {
    got.cliExclude = [].concat(got.exclude);
    delete got.exclude;
  }
  if (got.typecheck && typeof got.typecheck.only === 'boolean') got.typecheck.enabled ??= true;
  return {
    ...got,
    run: true,
    watch: false,
    reporters: [path.join(here, 'tapline-vitest-reporter.mjs')],
    coverage: { ...(got.coverage || {}), enabled: false },
    passWithNoTests: false,
  };
}

// The specifications of exactly `file`, one per project that includes it.
async function specsOf(ctx, file) {
  const abs = path.resolve(file);
  const all = await ctx.getRelevantTestSpecifications([abs]);
  return all.filter((s) => path.resolve(s.moduleId) === abs);
}

// A file's dependency trace (src/run/trace): the test file, what it imported as vite's
// module graphs hold it (vitest runs the file in a worker of its own, where no hook of
// tapline's sees the imports), its project's setup files and config file; appended to `out`.
// `done`: this process ends the trace (a warm worker's); else node's trace hook in this
// process ends it. Nothing is written when vitest keeps no graph.
function writeTrace(out, specs, done) {
  try {
    const files = new Set();
    const seen = new Set();
    const stack = [];
    const graphs = (vite) => [...Object.values(vite.environments || {}).map((e) => e.moduleGraph), vite.moduleGraph].filter(Boolean);
    const add = (vite, file) => {
      files.add(path.resolve(file));
      for (const g of graphs(vite)) for (const m of g.getModulesByFile?.(file) || []) stack.push(m);
    };
    for (const s of specs) {
      const vite = s.project.vite;
      add(vite, path.resolve(s.moduleId));
      for (const f of [].concat(s.project.config.setupFiles || [])) add(vite, f);
      if (vite.config && vite.config.configFile) files.add(vite.config.configFile);
    }
    while (stack.length) {
      const m = stack.pop();
      if (!m || seen.has(m)) continue;
      seen.add(m);
      if (m.file) files.add(m.file);
      for (const c of m.importedModules || []) stack.push(c);
    }
    let text = '';
    for (const f of files) text += f + '\n';
    fs.appendFileSync(out, text + (done ? '#done node\n' : ''));
  } catch (_) {
    // No trace: tapline then treats the file as depending on anything.
  }
}

// Runs `file`; resolves with its exit code. `trace`: where its dependency trace goes, and
// whether this process ends it.
async function runFile(ctx, file, trace) {
  process.env.TAPLINE_VITEST_FILE = path.resolve(file);
  if (typeof ctx.runTestSpecifications !== 'function') {
    // vitest 1-2: its own run, FILE as a filter; the reporter keeps FILE's tests only.
    await ctx.start([path.resolve(file)]);
    return process.exitCode ? 1 : 0;
  }
  const specs = await specsOf(ctx, file);
  if (specs.length === 0) {
    process.stderr.write(`tapline: vitest's configuration in ${cwd} does not include ${file}\n`);
    return 1;
  }
  const got = await ctx.runTestSpecifications(specs, false);
  // vitest's state holds every module its earlier runs (a worker's other files) ran too.
  const ids = new Set(specs.map((s) => path.resolve(s.moduleId)));
  const mine = (got.testModules || []).filter((m) => ids.has(path.resolve(m.moduleId)));
  if (trace && trace.out) writeTrace(trace.out, specs, trace.done);
  const failed = mine.some((m) => (typeof m.ok === 'function' ? !m.ok() : m.state() === 'failed'));
  return failed || (got.unhandledErrors || []).length > 0 ? 1 : 0;
}

// stdout is the file's TAP alone: the reporter writes it to fd 1 itself, and everything else
// (vitest's own words, what the file's workers print: a file that imports node:test makes
// node print TAP 13 of its own there) goes to stderr, as the file's output.
function keepStdoutForTap() {
  globalThis.__taplineVitestOut = (text) => pool.writeAll(1, text);
  process.stdout.write = process.stderr.write.bind(process.stderr);
}

async function create() {
  keepStdoutForTap();
  const api = await vitestNode();
  const streams = { stdout: process.stderr, stderr: process.stderr };
  const ctx = await api.createVitest('test', options(api), {}, streams);
  // Reporters' onInit, the test files' cache (vitest 4.1 renamed init standalone).
  if (typeof ctx.runTestSpecifications === 'function') {
    if (typeof ctx.standalone === 'function') await ctx.standalone();
    else await ctx.init();
  }
  return ctx;
}

async function runAlone() {
  if (!operand) die('no test file to run', 2);
  const ctx = await create();
  let code;
  try {
    code = await runFile(ctx, operand, { out: process.env.TAPLINE_TRACE_OUT, done: false });
  } finally {
    await ctx.close();
  }
  process.exit(code);
}

// --- the warm worker ---
// Commands are read as stdin's events come: vite's server needs the event loop between files.
async function serve() {
  const next = pool.commands();
  const ctx = await create();
  await pool.serve((cmd) => runFile(ctx, cmd.file, { out: cmd.trace, done: true }), { next });
  await ctx.close();
}

const fail = (err) => {
  console.error(err);
  process.exit(1);
};
// The option that runs files one after another, as the user's configuration (vitest's
// `test`, each project's) sets it once vitest has loaded it: `fileParallelism: false`,
// `maxWorkers: 1` (vitest 4; `maxThreads`/`maxForks` before), `poolOptions.forks.singleFork`
// or `poolOptions.threads.singleThread` (vitest 1-3). Set, not resolved: vitest resolves
// `maxWorkers` from the machine's cores, which says nothing of the project.
function serialOption(test) {
  if (!test) return null;
  if (test.fileParallelism === false) return 'fileParallelism';
  const one = (v) => v === 1 || v === '1';
  if (one(test.maxWorkers) || one(test.maxThreads) || one(test.maxForks)) return 'maxWorkers';
  const pools = test.poolOptions || {};
  if (pools.forks && pools.forks.singleFork) return 'singleFork';
  if (pools.threads && pools.threads.singleThread) return 'singleThread';
  return null;
}

async function serial() {
  const api = await vitestNode();
  const quiet = { write: () => true };
  const streams = { stdout: quiet, stderr: quiet };
  const ctx = await api.createVitest('test', options(api), {}, streams);
  try {
    const tests = [ctx.vite && ctx.vite.config && ctx.vite.config.test];
    for (const p of ctx.projects || []) tests.push(p.vite && p.vite.config && p.vite.config.test);
    const said = tests.map(serialOption).find(Boolean);
    if (said) process.stdout.write(said + '\n');
  } finally {
    await ctx.close();
  }
}

if (mode === 'serial') {
  serial().then(() => process.exit(0), fail);
} else if (mode === 'run' && pool.warm) {
  serve().then(() => process.exit(0), fail);
} else if (mode === 'run') {
  runAlone().catch(fail);
} else {
  die('usage: tapline-vitest.mjs run FLAGS... -- FILE', 2);
}
