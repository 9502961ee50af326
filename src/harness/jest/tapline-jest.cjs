// tapline's jest driver (src/harness/jest/mod.rs): lists and runs a project's test files
// through the project's own jest, with the flags of its test script and its configuration
// (jest.config.*, package.json `jest`), one file at a time, printing TAP through tapline's
// reporter (tapline-jest-reporter.cjs).
//
//   node tapline-jest.cjs list FLAGS...          the files jest would run, one a line
//   node tapline-jest.cjs run FLAGS... -- FILE   FILE alone, as jest would run it
//
// FLAGS are the script's own words after `jest`, read by jest's own command-line parser. To run
// one file the driver keeps them all but what would run other files or print on stdout: the
// script's path patterns, --watch, --onlyChanged, --findRelatedTests, --listTests, --json,
// --shard, --coverage. It adds --runTestsByPath FILE, --runInBand, --ci (snapshots are never
// written), --useStderr (jest's own words go to stderr), --verbose=false (a test's console
// output is buffered, and printed by the reporter as `# ` comments) and its reporter alone.
// With TAPLINE_WARM_NONCE set, `run` is tapline's warm worker (src/run/worker): it loads jest
// once, then reads one JSON command a line on stdin ({"file", "env"}), runs each file through
// jest's runCLI, and ends it with the pool's marker `⟦tapline-warm NONCE end CODE MICROS⟧` on
// stdout and stderr (stdout only when they are one pipe). A file's exit code is jest's: 0, or
// its config's testFailureExitCode (1) when the file failed.
'use strict';
const fs = require('fs');
const path = require('path');

const cwd = process.cwd();
const [mode, ...rest] = process.argv.slice(2);
const dash = rest.lastIndexOf('--');
const flags = dash < 0 ? rest : rest.slice(0, dash);
const operand = dash < 0 ? null : rest[dash + 1];
const REPORTER = path.join(__dirname, 'tapline-jest-reporter.cjs');

// What a test file read, for tapline's dependency trace (src/run/trace): jest loads a test's
// modules through its own module registry, which reads each source with fs.readFileSync (its
// graceful-fs copies fs when jest loads, so the wrapper goes on first). The reporter opens
// the window when jest starts the file and closes it when the file's result comes, so the
// files jest's own file map reads are not the test's.
const READS = Symbol.for('tapline.jest.reads');
const reads = { on: false, files: new Set() };
globalThis[READS] = reads;
const readFileSync = fs.readFileSync;
fs.readFileSync = function tracedReadFileSync(file, ...more) {
  if (reads.on && typeof file === 'string') reads.files.add(path.resolve(file));
  return readFileSync.call(this, file, ...more);
};

// Appends the files `file`'s test read to the trace file `out` (the driver's own, jest's and
// the other packages' are not the project's), ended by `#done node` when `done`.
function writeTrace(out, file, done) {
  try {
    const inside = `${path.sep}node_modules${path.sep}`;
    const files = [...reads.files].filter((f) => !f.includes(inside) && path.dirname(f) !== __dirname);
    files.push(path.resolve(file));
    fs.appendFileSync(out, files.join('\n') + '\n' + (done ? '#done node\n' : ''));
  } catch (_) {
    // No trace: tapline then treats the file as depending on anything.
  }
}

function die(message, code) {
  process.stderr.write(`tapline: ${message}\n`);
  process.exit(code);
}

// An error's message on one line, without colours or jest's bullets (a validation error of
// jest's spans lines: "● Unrecognized CLI Parameter:" then what it is).
function messageOf(err) {
  const text = err && err.message ? err.message : String(err);
  return text
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .map((l) => l.replace(/^\s*●\s*/, '').trim())
    .filter(Boolean)
    .join(' ');
}

// The project's own jest: its command-line parser and runCLI. jest 30's jest-cli exports
// buildArgv; jest 29's keeps it in build/run.js, jest 27-28's in build/cli/index.js (not in
// their exports map, so by path).
function loadJest() {
  let cliHome;
  try {
    const jestHome = path.dirname(require.resolve('jest/package.json', { paths: [cwd] }));
    cliHome = path.dirname(require.resolve('jest-cli/package.json', { paths: [jestHome] }));
  } catch (_) {
    try {
      cliHome = path.dirname(require.resolve('jest-cli/package.json', { paths: [cwd] }));
    } catch (_) {
      die(`jest is not installed in ${cwd} (npm install)`, 127);
    }
  }
  const cli = require(cliHome);
  const inside = (...rel) => {
    try {
      return require(path.join(cliHome, ...rel)).buildArgv;
    } catch (_) {
      return undefined;
    }
  };
  const buildArgv = cli.buildArgv || inside('build', 'run.js') || inside('build', 'cli', 'index.js');
  const core = require(require.resolve('@jest/core', { paths: [cliHome] }));
  if (typeof buildArgv !== 'function' || typeof core.runCLI !== 'function') {
    die(`the jest in ${cliHome} has no buildArgv or runCLI tapline can call`, 127);
  }
  keepResolvers(cliHome);
  return { buildArgv, runCLI: core.runCLI };
}

// One resolver per project configuration for the worker's life, as jest's own worker keeps one
// per configuration for all the files it runs (jest-runner's `setup`): each runCLI would
// otherwise build a new one, its caches empty, and resolve jest's own modules again for every
// file (the largest part of a warm file's cost in a profile).
function keepResolvers(cliHome) {
  let Runtime;
  try {
    const core = path.dirname(require.resolve('@jest/core/package.json', { paths: [cliHome] }));
    const mod = require(require.resolve('jest-runtime', { paths: [core] }));
    Runtime = mod && mod.default ? mod.default : mod;
  } catch (_) {
    return;
  }
  if (!Runtime || typeof Runtime.createResolver !== 'function') return;
  const make = Runtime.createResolver;
  const kept = new Map();
  Runtime.createResolver = function keptResolver(config, moduleMap) {
    const id = config && config.id;
    if (!id) return make.call(this, config, moduleMap);
    if (!kept.has(id)) kept.set(id, make.call(this, config, moduleMap));
    return kept.get(id);
  };
}

// jest-cli's own list of projects: --projects, else the cwd.
function projectsOf(argv) {
  const projects = Array.isArray(argv.projects) ? argv.projects.slice() : [];
  return projects.length ? projects : [cwd];
}

// What would make jest run more than the one file, watch, or print on stdout.
const DROPPED = [
  'watch', 'watchAll', 'onlyChanged', 'o', 'changedSince', 'lastCommit', 'findRelatedTests',
  'listTests', 'showConfig', 'json', 'outputFile', 'shard', 'onlyFailures', 'f',
  'testPathPattern', 'testPathPatterns', 'coverage', 'collectCoverage', 'reporters',
];

// The script's flags as jest's parser reads them, parsed once (a warm worker's files all
// share them); each file gets a copy of its own.
let parsed = null;
async function argvFor(jest, file) {
  if (!parsed) parsed = JSON.stringify(await jest.buildArgv(flags.slice()));
  const argv = JSON.parse(parsed);
  for (const key of DROPPED) delete argv[key];
  // A pattern given twice (the script's and tapline's -t) is the last one.
  if (Array.isArray(argv.testNamePattern)) argv.testNamePattern = argv.testNamePattern.pop();
  if (Array.isArray(argv.t)) argv.t = argv.t.pop();
  argv._ = [path.resolve(file)];
  argv.runTestsByPath = true;
  argv.runInBand = true;
  argv.ci = true;
  argv.useStderr = true;
  argv.verbose = false;
  argv.coverage = false;
  argv.collectCoverage = false;
  argv.watch = false;
  argv.watchAll = false;
  argv.reporters = [REPORTER];
  return argv;
}

async function list() {
  const jest = loadJest();
  const argv = await jest.buildArgv(flags.slice());
  for (const key of ['watch', 'watchAll', 'json', 'outputFile', 'showConfig', 'coverage']) delete argv[key];
  argv.listTests = true;
  argv.json = true;
  argv.watch = false;
  argv.watchAll = false;
  // jest prints the list with console.log: it is taken here, anything else goes to stderr.
  const log = console.log;
  let files = null;
  console.log = (...args) => {
    const text = args.length === 1 && typeof args[0] === 'string' ? args[0] : null;
    if (files === null && text && text.startsWith('[')) {
      try {
        const got = JSON.parse(text);
        if (Array.isArray(got)) {
          files = got;
          return;
        }
      } catch (_) {
        // Not the list: a config's own output.
      }
    }
    console.error(...args);
  };
  try {
    await jest.runCLI(argv, projectsOf(argv));
  } finally {
    console.log = log;
  }
  if (files === null) die("jest printed no list of its test files", 2);
  let text = '';
  for (const f of files) text += path.relative(cwd, f).split(path.sep).join('/') + '\n';
  process.stdout.write(text);
}

// Runs `file` alone; resolves with jest's exit code for it.
async function runFile(jest, file) {
  const argv = await argvFor(jest, file);
  reads.files.clear();
  process.exitCode = undefined;
  const { results, globalConfig } = await jest.runCLI(argv, projectsOf(argv));
  const failed = !results || !results.success;
  const code = failed ? globalConfig.testFailureExitCode || 1 : process.exitCode || 0;
  return { code: Math.min(Number(code) || 0, 255), forceExit: !!globalConfig.forceExit };
}

async function runAlone() {
  if (!operand) die('no test file to run', 2);
  const jest = loadJest();
  let got;
  try {
    got = await runFile(jest, operand);
  } catch (err) {
    console.error(err && err.stack ? err.stack : String(err));
    process.exit(1);
  }
  // Beside what node's trace hook records (jest's own modules), the files the test read.
  if (process.env.TAPLINE_TRACE_OUT) writeTrace(process.env.TAPLINE_TRACE_OUT, operand, false);
  // As jest's own end: the exit code, and an exit only with --forceExit.
  process.exitCode = got.code;
  if (got.forceExit) process.exit(got.code);
}

// --- the warm worker ---
const pool = require('./tapline-warm-pool.cjs');

async function serve() {
  const jest = loadJest();
  await pool.serve(
    async (cmd) => {
      try {
        return (await runFile(jest, cmd.file)).code;
      } finally {
        process.exitCode = undefined;
      }
    },
    {
      after: (cmd) => {
        if (cmd.trace) writeTrace(cmd.trace, cmd.file, true);
      },
    },
  );
}

if (mode === 'list') {
  list().catch((err) => die(`failed to read jest's configuration: ${messageOf(err)}`, 2));
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
  die('usage: tapline-jest.cjs list FLAGS... | run FLAGS... -- FILE', 2);
}
