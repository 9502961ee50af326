// tapline's ava driver (src/harness/ava/mod.rs): lists and runs a project's test files through
// the project's own ava, with the flags of its test script and its configuration (package.json
// `ava`, ava.config.{js,cjs,mjs}).
//
//   node tapline-ava.mjs list [--config FILE] [-- PATTERN...]   the files ava would run, one a line
//   node tapline-ava.mjs run FLAG... FILE                        FILE alone, as `ava --tap FILE`
//   node tapline-ava.mjs serial [--config FILE]                  `serial` or `concurrency` when
//                                                                 the configuration runs files one at a time
//
// ava has no list command: `list` asks ava's own modules (lib/load-config.js, lib/globs.js,
// lib/extensions.js, the TypeScript provider) for its `files` globs, as ava's CLI builds them,
// and globs them as ava does (helpers, fixtures and `_`-prefixed files left out); PATTERNs (the
// script's own, `ava test/a.js`) narrow them as ava's CLI does. An ava that keeps those
// modules elsewhere is listed by ava's documented defaults (the fallback below).
//
// `run` is ava's own CLI with `--tap`, FILE and the script's FLAGs (its patterns dropped): one
// file, so no title prefix. Only the TAP reporter's points are rewritten: ava 6's `at:` names
// ava's own assert.js, so a failure's YAML is written as tapline's other reporters write it
// (tap-common.cjs): `message` (ava's, none when the assertion had none), `name`, `assertion`,
// `at` (the test file's frame of the stack), `stack`, and ava's labelled values as its own TAP
// reporter writes them (`details:`, its `Difference (- actual, + expected):` block with ava's
// sides). ava's exit code is kept.
import fs from 'node:fs';
import path from 'node:path';
import module, {createRequire} from 'node:module';
import {pathToFileURL} from 'node:url';

const cwd = process.cwd();
const [mode, ...rest] = process.argv.slice(2);

function die(message, code) {
  process.stderr.write(`tapline: ${message}\n`);
  process.exit(code);
}

// The project's own ava: its package folder, found from the cwd as `npx ava` would.
function avaHome() {
  let entry;
  try {
    entry = createRequire(path.join(cwd, 'package.json')).resolve('ava');
  } catch {
    die(`ava is not installed in ${cwd} (npm install)`, 127);
  }
  for (let dir = path.dirname(entry); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    try {
      if (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name === 'ava') return dir;
    } catch {
      // Not the package's folder yet.
    }
  }
  die(`ava's package folder not found above ${entry}`, 127);
}

const home = avaHome();
const lib = (inside) => import(pathToFileURL(path.join(home, inside)).href);

// The files ava would run: its configuration's globs (or its defaults), its extensions, as
// ava's own modules build and glob them; by ava's documented defaults when this ava keeps
// those modules elsewhere.
async function list(args) {
  const dash = args.indexOf('--');
  const flags = dash < 0 ? args : args.slice(0, dash);
  const patterns = dash < 0 ? [] : args.slice(dash + 1);
  const at = flags.findIndex((f) => f === '--config' || f.startsWith('--config='));
  const configFile = at < 0 ? undefined : flags[at].includes('=') ? flags[at].slice(9) : flags[at + 1];
  let files;
  try {
    files = await listByAva(configFile, patterns);
  } catch (err) {
    if (!err || err.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes(home)) throw err;
    process.stderr.write(`tapline: ava's own globs are not where ava 5 and 6 keep them (${err.message}); listed by ava's documented defaults\n`);
    files = await listByDefaults(configFile, patterns);
  }
  const rel = [...new Set(files)].map((f) => path.relative(cwd, f).split(path.sep).join('/')).sort();
  process.stdout.write(rel.map((f) => f + '\n').join(''));
}

async function listByAva(configFile, patterns) {
  const {loadConfig} = await lib('lib/load-config.js');
  const loaded = await loadConfig({configFile});
  // ava 4+ returns {config, unsupportedFiles}; older ones the configuration itself.
  const conf = loaded && loaded.config && loaded.unsupportedFiles ? loaded.config : loaded;
  const projectDir = conf.projectDir || cwd;
  const providers = [];
  if (Object.hasOwn(conf, 'typescript')) {
    const {default: manager} = await lib('lib/provider-manager.js');
    const {level, main, identifier} = await manager.typescript(projectDir);
    providers.push({level, protocol: identifier, main: main({config: conf.typescript}), type: 'typescript'});
  }
  const {default: normalizeExtensions} = await lib('lib/extensions.js');
  const globs = await lib('lib/globs.js');
  const extensions = normalizeExtensions(conf.extensions, providers);
  const normalized = globs.normalizeGlobs({
    extensions,
    files: conf.files,
    ignoredByWatcher: conf.watchMode?.ignoreChanges ?? conf.ignoredByWatcher,
    providers,
  });
  const tests = await globs.findTests({cwd: projectDir, ...normalized});
  if (patterns.length === 0) return tests;
  const split = await splitter();
  return globs.applyTestFileFilter({
    cwd: projectDir,
    filter: patterns.map((p) => globs.normalizePattern(path.relative(projectDir, path.resolve(cwd, split(p))))),
    providers,
    testFiles: tests,
  });
}

// --- the fallback: ava's documented defaults, read without ava's modules ---

// The configuration: the file `--config` names, else ava.config.{js,cjs,mjs}, else
// package.json's `ava`.
async function configByDefaults(configFile) {
  const names = configFile ? [configFile] : ['ava.config.js', 'ava.config.cjs', 'ava.config.mjs'];
  for (const name of names) {
    const abs = path.resolve(cwd, name);
    if (!fs.existsSync(abs)) continue;
    const m = await import(pathToFileURL(abs).href);
    const conf = m.default ?? m;
    return typeof conf === 'function' ? await conf({projectDir: cwd}) : conf;
  }
  try {
    return JSON.parse(fs.readFileSync(path.join(cwd, 'package.json'), 'utf8')).ava || {};
  } catch {
    return {};
  }
}

// A glob as a regular expression over a path from the project folder: `**`, `*`, `?`,
// `{a,b}`, `?(x)`, case-insensitive as ava globs.
function globRegex(glob) {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (glob.startsWith('**/', i)) {
      re += '(?:.*/)?';
      i += 2;
    } else if (glob.startsWith('**', i)) {
      re += '.*';
      i += 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?' && glob[i + 1] === '(') {
      const close = glob.indexOf(')', i);
      re += `(?:${glob.slice(i + 2, close).split('|').map(escape).join('|')})?`;
      i = close;
    } else if (c === '?') re += '[^/]';
    else if (c === '{') {
      const close = glob.indexOf('}', i);
      re += `(?:${glob.slice(i + 1, close).split(',').map((part) => globRegex(part).source.slice(1, -1)).join('|')})`;
      i = close;
    } else re += escape(c);
  }
  return new RegExp(`^${re}$`, 'i');
}

function escape(text) {
  return text.replace(/[.+^$()|[\]\\]/g, '\\$&');
}

// Every file below `dir` (as paths from the cwd), but dot folders and ava's ignored ones.
function walk(dir, out) {
  for (const entry of fs.readdirSync(path.join(cwd, dir), {withFileTypes: true})) {
    if (entry.name.startsWith('.')) continue;
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!['node_modules', 'bower_components', 'coverage'].includes(entry.name)) walk(rel, out);
    } else if (entry.isFile()) out.push(rel);
  }
  return out;
}

async function listByDefaults(configFile, patterns) {
  const conf = await configByDefaults(configFile);
  const ext = Array.isArray(conf.extensions)
    ? conf.extensions
    : conf.extensions && typeof conf.extensions === 'object'
      ? Object.keys(conf.extensions)
      : ['cjs', 'mjs', 'js'];
  const e = ext.length === 1 ? ext[0] : `{${ext.join(',')}}`;
  const defaults = [
    `test.${e}`,
    `{src,source}/test.${e}`,
    `**/__tests__/**/*.${e}`,
    `**/*.spec.${e}`,
    `**/*.test.${e}`,
    `**/test-*.${e}`,
    `**/test/**/*.${e}`,
    `**/tests/**/*.${e}`,
    '!**/__tests__/**/__{helper,fixture}?(s)__/**/*',
    '!**/test?(s)/**/{helper,fixture}?(s)/**/*',
  ];
  let globs = Array.isArray(conf.files) && conf.files.length > 0 ? conf.files.map(String) : defaults;
  if (globs.every((g) => g.startsWith('!'))) globs = [...defaults, ...globs];
  const take = globs.filter((g) => !g.startsWith('!')).map(globRegex);
  const drop = globs.filter((g) => g.startsWith('!')).map((g) => globRegex(g.slice(1)));
  const named = patterns.map((p) => path.relative(cwd, path.resolve(cwd, p)).split(path.sep).join('/'));
  return walk('', [])
    .filter((f) => take.some((r) => r.test(f)) && !drop.some((r) => r.test(f)))
    .filter((f) => ext.some((x) => f.endsWith(`.${x}`)) && !path.basename(f).startsWith('_'))
    .filter((f) => named.length === 0 || named.some((n) => f === n || f.startsWith(`${n}/`) || globRegex(n).test(f)))
    .map((f) => path.join(cwd, f));
}

// A pattern less its line numbers (`test.js:3-5`), as ava's CLI reads it.
async function splitter() {
  try {
    const {splitPatternAndLineNumbers} = await lib('lib/line-numbers.js');
    if (typeof splitPatternAndLineNumbers === 'function') return (p) => splitPatternAndLineNumbers(p).pattern;
  } catch {
    // An ava without line numbers.
  }
  return (p) => p;
}

// --- run: ava's CLI, its TAP reporter's points written by tapline ---

const require = createRequire(import.meta.url);
const {desc, yaml} = require('./tap-common.cjs');

// ava's details of a failed assertion ({label, formatted}; ava 6 `formattedDetails`, ava 5
// `values`), ANSI colours stripped.
function detailsOf(err) {
  const plain = (s) => String(s ?? '').replace(/\u001b\[[0-9;]*m/g, '');
  const all = [].concat(err.formattedDetails || err.values || []);
  return all.map(({label, formatted}) => ({label: plain(label).trim(), formatted: plain(formatted)}));
}

// A failure's fields, the same for ava 5 and 6, and for a crash (a plain error): ava's message
// (none when the assertion was given none, as ava's reporter says none), and its labelled
// values under `details:` as ava's own TAP reporter writes them (the `Difference (- actual, +
// expected):` block with ava's sides), which tapline reads as it reads `ava --tap`.
function failure(err, testFile) {
  const e = err || {};
  const original = e.originalError && typeof e.originalError === 'object' ? e.originalError : {};
  const details = detailsOf(e);
  const said = String(e.message ?? original.message ?? '');
  const message = said || (details.length || e.assertion ? '' : e.type === 'unknown' ? 'Non-error thrown' : '');
  const extra = {};
  if (e.assertion) extra.assertion = e.assertion;
  if (e.type === 'unknown' && e.formattedError) extra.thrown = String(e.formattedError).replace(/\u001b\[[0-9;]*m/g, '');
  const stack = e.stack || original.stack || '';
  const name = e.name || original.name;
  const fields = {message, name: name === 'AssertionError' && e.type === 'ava' ? undefined : name, stack};
  // ava's own stack frames sit in node_modules: the test file's frame is the place.
  const block = yaml(fields, testFile || '', extra);
  return details.length ? block.replace(/\n  \.\.\.$/, () => `\n${detailsYaml(details)}\n  ...`) : block;
}

// ava's map of label to formatted value, as its TAP reporter writes it: keys and values as JSON
// strings (YAML's double-quoted scalars).
function detailsYaml(details) {
  const line = ({label, formatted}) => `    ${JSON.stringify(label)}: ${JSON.stringify(formatted.replace(/\n$/, ''))}`;
  return ['  details:', ...details.map(line)].join('\n');
}

function logs(evt) {
  return [].concat(evt.logs || []).flatMap((l) => String(l).split('\n')).map((l) => `# ${l}\n`).join('');
}

// The job counts of the CI services whose parallel jobs ava splits its files across
// (ci-parallel-vars).
const PARALLEL_TOTALS = [
  'CI_NODE_TOTAL',
  'CIRCLE_NODE_TOTAL',
  'BITBUCKET_PARALLEL_STEP_COUNT',
  'BUILDKITE_PARALLEL_JOB_COUNT',
  'SEMAPHORE_JOB_COUNT',
];

// ava's TAP reporter, its points written by tapline (above).
async function patchReporter() {
  const {default: TapReporter} = await lib('lib/reporters/tap.js');
  const proto = TapReporter.prototype;
  const point = function (title, evt, passed, directive) {
    this.i += 1;
    let text = `${passed ? 'ok' : 'not ok'} ${this.i} - ${desc(title)}${directive ? ' # ' + directive : ''}\n`;
    if (!passed && !directive && evt.err) text += failure(evt.err, evt.testFile) + '\n';
    this.reportStream.write(text + logs(evt));
  };
  const start = proto.startRun;
  proto.startRun = function (plan) {
    const stream = this.reportStream;
    this.reportStream = {write: (t) => stream.write(String(t).replace(/^TAP version 13/, 'TAP version 14'))};
    try {
      start.call(this, plan);
    } finally {
      this.reportStream = stream;
    }
  };
  // The plan counts every point written (a crash too); ava's own summary comments are left
  // out, tapline counts the points itself.
  proto.endRun = function () {
    this.reportStream.write(`1..${this.i}\n`);
  };
  proto.writeTest = function (evt, flags) {
    const title = this.prefixTitle(evt.testFile, evt.title);
    if (flags.todo) point.call(this, title, evt, false, 'TODO');
    else if (flags.skip) point.call(this, title, evt, true, 'SKIP');
    else point.call(this, title, evt, flags.passed, '');
  };
  // A finished hook: ava writes its title as a comment, which, first in a file's TAP, a TAP
  // reader takes for the heading of the points after it (tape's test names). Only its logs are
  // kept.
  proto.writeComment = function (evt) {
    this.reportStream.write(logs(evt));
  };
  proto.writeCrash = function (evt, title) {
    this.crashCount += 1;
    const err = evt.err || {};
    const head = title ?? String(err.stack || '').split('\n')[0].trim() ?? err.message ?? evt.type;
    point.call(this, head || String(evt.type), evt, false, '');
  };
}

// One ava run of `file` with the script's `flags` (ava's `--` worker arguments last); resolves
// with ava's exit code. ava's CLI sets the exit code and leaves the process up, so a warm
// worker runs it again for the next file.
async function runFile(flags, file) {
  const dash = flags.indexOf('--');
  const own = dash < 0 ? flags : flags.slice(0, dash);
  const tail = dash < 0 ? [] : flags.slice(dash);
  // On a CI job that says it is one of several (CI_NODE_TOTAL and the like), ava runs only
  // its share of the files it is given: of one file, none, green. tapline's --partition
  // splits the files; the one named here runs.
  for (const total of PARALLEL_TOTALS) delete process.env[total];
  process.argv = [process.argv[0], path.join(home, 'entrypoints', 'cli.mjs'), ...own, '--tap', file, ...tail];
  process.exitCode = undefined;
  const cli = await lib('lib/cli.js');
  await cli.default();
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return code;
}

// `run FLAG... FILE`: FILE alone.
async function run(args) {
  const file = args[args.length - 1];
  if (!file) die('no test file to run', 2);
  await patchReporter();
  process.exitCode = await runFile(args.slice(0, -1), file);
}

// --- the warm worker (src/run/worker): `run FLAG... DRIVER` with TAPLINE_WARM_NONCE set reads one
// JSON command a line on stdin ({"file", "env"}), runs each file as `run FLAG... FILE` would,
// and ends it with the pool's marker `⟦tapline-warm NONCE end CODE MICROS⟧` on stdout and
// stderr (stdout only when they are one pipe). ava's main process only schedules: each file's
// tests still run in a worker thread or process of their own, started afresh, as in ava's own
// run of many files.
const pool = require('./tapline-warm-pool.cjs');

// ava's CLI configures its colours once a process (lib/chalk.js throws on a second time):
// that guard is dropped from the module's source as it loads, through a module hook, so the
// CLI runs again for the next file. Whether it was: else the worker ends after one file, each
// file then runs in a process of its own.
const CHALK_GUARD = /if \(configured\) \{\s*throw new Error\('Chalk has already been configured'\);\s*\}/;

function unguardChalk() {
  let source;
  try {
    source = fs.readFileSync(path.join(home, 'lib', 'chalk.js'), 'utf8');
  } catch {
    return true;
  }
  if (!source.includes('already been configured')) return true;
  if (!CHALK_GUARD.test(source) || typeof module.register !== 'function') return false;
  const chalk = pathToFileURL(path.join(home, 'lib', 'chalk.js')).href;
  const hooks = `const guard = ${CHALK_GUARD};
export async function load(url, context, next) {
  const loaded = await next(url, context);
  if (url !== ${JSON.stringify(chalk)} || loaded.source == null) return loaded;
  return {...loaded, source: String(loaded.source).replace(guard, '')};
}`;
  module.register('data:text/javascript,' + encodeURIComponent(hooks));
  return true;
}

// The process's signal and exit listeners: a run of ava's CLI adds its own (SIGINT, …),
// which outlive it; the next file's run adds them again.
const EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'exit', 'beforeExit', 'uncaughtException', 'unhandledRejection'];

function listening() {
  return new Map(EVENTS.map((e) => [e, new Set(process.listeners(e))]));
}

function forget(before) {
  for (const [event, had] of before) {
    for (const l of process.listeners(event)) if (!had.has(l)) process.removeListener(event, l);
  }
}

async function serve(flags) {
  const again = unguardChalk();
  await patchReporter();
  let before;
  await pool.serve(
    (cmd) => {
      before = listening();
      return runFile(flags, cmd.file);
    },
    {
      // ava leaves its signal listeners behind; a worker that cannot run ava again ends
      // with the file.
      after: () => {
        forget(before);
        return again;
      },
    },
  );
}

// Whether ava's configuration, as ava's own loader reads it, runs files one after another:
// prints `serial` (`serial: true`), `concurrency` (`concurrency: 1`) or nothing.
async function serialByConfig(args) {
  const at = args.findIndex((f) => f === '--config' || f.startsWith('--config='));
  const configFile = at < 0 ? undefined : args[at].includes('=') ? args[at].slice(9) : args[at + 1];
  const {loadConfig} = await lib('lib/load-config.js');
  const loaded = await loadConfig({configFile});
  const conf = loaded && loaded.config && loaded.unsupportedFiles ? loaded.config : loaded;
  if (conf.serial === true) process.stdout.write('serial\n');
  else if (Number(conf.concurrency) === 1) process.stdout.write('concurrency\n');
}

if (mode === 'serial') {
  serialByConfig(rest).catch((err) => die(`failed to read ava's configuration: ${err && err.message ? err.message : err}`, 2));
} else if (mode === 'list') {
  list(rest).catch((err) => die(`failed to read ava's configuration: ${err && err.message ? err.message : err}`, 2));
} else if (mode === 'run' && pool.warm) {
  // The pool starts the worker as the command less its file, plus its own copy of this
  // driver in the file's place.
  serve(rest.slice(0, -1)).then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
} else if (mode === 'run') {
  run(rest).catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  die('usage: tapline-ava.mjs list [--config FILE] [-- PATTERN...] | run FLAG... FILE', 2);
}
