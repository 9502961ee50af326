// tapline's mocha driver (src/harness/mocha/mod.rs): runs a project's test files through the
// project's own mocha, with the flags of its test script and its configuration (.mocharc.*,
// package.json `mocha`), one file at a time, printing TAP through tapline's reporter.
//
//   node tapline-mocha.cjs list FLAGS...          the files mocha would run, one a line
//   node tapline-mocha.cjs run FLAGS... -- FILE   FILE alone, as mocha would run it
//
// FLAGS are the script's own words after `mocha`. Mocha adds files named on its command line
// to the `spec` of its configuration, so `mocha FILE` may run every file: this driver keeps
// all the rest (require, ui, timeout, extension, check-leaks, root hooks) and runs FILE only.
// With TAPLINE_WARM_NONCE set, `run` is tapline's warm worker (src/run/worker): it loads the
// requires once, then reads one JSON command a line on stdin ({"file", "env"}), runs each
// file, and ends it with the pool's marker `⟦tapline-warm NONCE end CODE MICROS⟧` on stdout
// and stderr (stdout only when they are one pipe). A file's exit code is mocha's: its failures,
// at most 255. What differs from mocha's own serial run: each file is a run of its own (root
// hooks and global fixtures run around each file), and in a worker a file ends when mocha
// says it ended, not when node's event loop empties.
'use strict';
const fs = require('fs');
const path = require('path');

const cwd = process.cwd();
const [mode, ...rest] = process.argv.slice(2);
const dash = rest.lastIndexOf('--');
const flags = dash < 0 ? rest : rest.slice(0, dash);
const operand = dash < 0 ? null : rest[dash + 1];

function die(message, code) {
  process.stderr.write(`tapline: ${message}\n`);
  process.exit(code);
}

// The project's own mocha, and one of its modules by its path inside the package.
let home;
try {
  home = path.dirname(require.resolve('mocha/package.json', { paths: [cwd] }));
} catch (_) {
  die(`mocha is not installed in ${cwd} (npm install)`, 127);
}
const lib = (inside) => require(path.join(home, inside));

function options() {
  const args = lib('lib/cli/options.js').loadOptions(flags.slice());
  const spec = [].concat(args._ || [], args.spec || []).map(String);
  return { args, spec: spec.length ? spec : ['./test'] };
}

// The files mocha would run for the script's flags and the configuration, absolute.
function collect() {
  const { args, spec } = options();
  const got = lib('lib/cli/collect-files.js')({
    ignore: [].concat(args.ignore || []),
    extension: [].concat(args.extension || ['js', 'cjs', 'mjs']),
    file: [],
    recursive: !!args.recursive,
    sort: true,
    spec,
  });
  return (Array.isArray(got) ? got : got.files).map((f) => path.resolve(f));
}

function list() {
  let text = '';
  for (const f of collect()) text += path.relative(cwd, f).split(path.sep).join('/') + '\n';
  process.stdout.write(text);
}

// The options every file runs with: the configuration's and the script's, the requires
// loaded (their root hooks and global fixtures kept), tapline's reporter.
async function prepare() {
  const { args } = options();
  const helpers = lib('lib/cli/run-helpers.js');
  const plugins = await helpers.handleRequires([].concat(args.require || []));
  Object.assign(args, plugins);
  for (const key of ['reporter-option', 'reporter-options', 'reporterOption']) delete args[key];
  args.reporterOptions = {};
  args.reporter = path.join(__dirname, 'tapline-mocha-reporter.cjs');
  args.R = args.reporter;
  args.parallel = false;
  args.watch = false;
  return args;
}

// Runs `file` alone; resolves with its failures.
async function runFile(args, file) {
  const Mocha = require(home);
  const mocha = new Mocha(args);
  const abs = path.resolve(file);
  process.env.TAPLINE_MOCHA_FILE = abs;
  mocha.files = [].concat(args.file || []).map((f) => path.resolve(f)).concat(abs);
  await mocha.loadFilesAsync();
  return new Promise((resolve) => mocha.run(resolve));
}

async function runAlone() {
  if (!operand) die('no test file to run', 2);
  let args;
  try {
    args = await prepare();
  } catch (err) {
    console.error('\n ERROR:', err);
    process.exit(1);
  }
  let failures;
  try {
    failures = await runFile(args, operand);
  } catch (err) {
    console.error('\n Exception during run:', err);
    process.exit(1);
  }
  const code = Math.min(failures, 255);
  if (args.exit) process.exit(code);
  process.exitCode = code;
}

// --- the warm worker ---
const pool = require('./tapline-warm-pool.cjs');

// A file's dependency trace (src/run/trace): the test file's module and, through each
// module's `children`, what it loaded (a module an earlier file loaded first still counts),
// with what the requires loaded before any file. An ES-module test file is not in
// `require.cache`: then nothing is written, and tapline treats the file as depending on
// anything.
function writeTrace(out, file, before) {
  try {
    const root = require.cache[file];
    if (!root) return;
    const seen = new Set(before);
    const stack = [root];
    while (stack.length > 0) {
      const m = stack.pop();
      if (!m || seen.has(m.filename)) continue;
      seen.add(m.filename);
      for (const c of m.children || []) stack.push(c);
    }
    seen.add(file);
    let text = '';
    for (const f of seen) text += f + '\n';
    fs.appendFileSync(out, text + '#done node\n');
  } catch (_) {
    // No trace: tapline then treats the file as depending on anything.
  }
}

// A worker loads every file mocha would run before its first file runs, as mocha's own
// serial run loads them all before any test: a file whose module starts work it does not
// wait for (a password hashed at load, a fixture read) finds it done, as under `mocha`. Each
// commanded file then runs alone: its suites and root-level tests moved into a run of their
// own, with the root-level hooks every loaded file and the requires added (mocha's root
// hooks apply to every file's tests). A file that failed to load fails when its turn comes,
// with its error, as `mocha FILE` would.
class Loaded {
  constructor(args) {
    const Mocha = require(home);
    this.args = args;
    this.mocha = new Mocha(args);
    this.errors = new Map();
    this.files = new Set();
  }
  async load(abs) {
    this.files.add(abs);
    this.mocha.files = [abs];
    try {
      await this.mocha.loadFilesAsync();
    } catch (err) {
      this.errors.set(abs, err);
    }
  }
  async loadAll() {
    for (const f of [].concat(this.args.file || [])) await this.load(path.resolve(f));
    let files = [];
    try {
      files = collect();
    } catch (_) {
      // Each file is then loaded when its turn comes.
    }
    for (const f of files) if (!this.files.has(f)) await this.load(f);
  }
  // Runs the loaded file `abs` alone; resolves with its failures.
  async run(abs) {
    if (!this.files.has(abs)) await this.load(abs);
    const err = this.errors.get(abs);
    if (err) {
      console.error('\n Exception during run:', err);
      return 1;
    }
    const Mocha = require(home);
    const own = new Mocha({ ...this.args, rootHooks: undefined });
    own.cleanReferencesAfterRun(false);
    own.files = [];
    const from = this.mocha.suite;
    const to = own.suite;
    const mine = (x) => x.file === abs;
    for (const s of from.suites.filter(mine)) {
      s.parent = to;
      to.suites.push(s);
    }
    for (const t of from.tests.filter(mine)) {
      t.parent = to;
      to.tests.push(t);
    }
    from.suites = from.suites.filter((x) => !mine(x));
    from.tests = from.tests.filter((x) => !mine(x));
    for (const hooks of ['_beforeAll', '_beforeEach', '_afterAll', '_afterEach']) {
      to[hooks] = from[hooks].slice();
    }
    process.env.TAPLINE_MOCHA_FILE = abs;
    return new Promise((resolve) => own.run(resolve));
  }
}

async function serve() {
  let args;
  try {
    args = await prepare();
  } catch (err) {
    // Each file then fails as `mocha FILE` would: the worker ends, the file is judged by it.
    console.error('\n ERROR:', err);
    process.exit(1);
  }
  const required = Object.keys(require.cache).filter((f) => !f.includes(`${path.sep}node_modules${path.sep}`) && f !== __filename && path.dirname(f) !== __dirname);
  const loaded = new Loaded(args);
  await loaded.loadAll();
  await pool.serve(async (cmd) => Math.min(await loaded.run(path.resolve(cmd.file)), 255), {
    after: (cmd) => {
      if (cmd.trace) writeTrace(cmd.trace, path.resolve(cmd.file), required);
    },
  });
}

if (mode === 'list') {
  try {
    list();
  } catch (err) {
    die(`failed to read mocha's configuration: ${err && err.message ? err.message : err}`, 2);
  }
} else if (mode === 'run' && pool.warm) {
  serve().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
} else if (mode === 'run') {
  runAlone();
} else {
  die('usage: tapline-mocha.cjs list FLAGS... | run FLAGS... -- FILE', 2);
}
