// tapline's driver for node-tap 18+: runs ONE test file as tap's own runner would spawn it
// (node with the loaders and imports of the project's tap plugins, its `node-arg`s, source
// maps, tap's processinfo), from the project's own tap and configuration, and prints the
// file's own TAP (no extra subtest level, no runner report).
//   node tapline-tap.mjs run FILE -- SCRIPT_ARGS...
// tap's coverage is off: a run through tapline reports tests, not tap's coverage thresholds.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const fail = (why) => {
  process.stderr.write(`tapline: ${why}\n`)
  process.exit(2)
}

const [, , mode, file, sep, ...scriptArgs] = process.argv
if (mode !== 'run' || !file || sep !== '--') fail('usage: tapline-tap.mjs run FILE -- ARGS...')

// The project's tap, then the runner and config packages it depends on.
const fromCwd = createRequire(join(process.cwd(), 'package.json'))
let tapPkg
try {
  tapPkg = fromCwd.resolve('tap/package.json')
} catch {
  fail('tap is not installed in this project (npm install)')
}
const fromTap = createRequire(tapPkg)
const pkgDir = (name) => {
  try {
    return dirname(fromTap.resolve(`${name}/package.json`))
  } catch {
    return fail(`tap's ${name} is not installed beside tap (tap 18 or later is needed)`)
  }
}
const runDir = pkgDir('@tapjs/run')
const configDir = pkgDir('@tapjs/config')

// tap's config reads its flags from process.argv as the script would pass them.
process.argv = [process.argv[0], 'tap', ...scriptArgs]
const { TapConfig } = await import(pathToFileURL(join(configDir, 'dist/esm/index.js')).href)
const config = await TapConfig.load()
config.parse()
const { testArgv } = await import(pathToFileURL(join(runDir, 'dist/esm/test-argv.js')).href)
const argv = testArgv(config)

const root = config.projectRoot

// What tap's TypeScript plugin sets in the runner's environment for the files it spawns (its
// plugin() runs in the runner, which loads tap; this driver does not): ts-node transpiles
// only unless `typecheck` is on, with the project's tsconfig. Inert where ts-node is not used.
{
  const env = process.env
  if (env.TS_NODE_TRANSPILE_ONLY === undefined) {
    env.TS_NODE_TRANSPILE_ONLY = env.TAP_TYPECHECK === '1' ? '0' : '1'
  }
  if (env.TAP_CWD && !env.TAP_TSCONFIG) {
    const names = ['tsconfig.tap.json', 'tsconfig.test.json', 'tsconfig.spec.json', 'tsconfig.json']
    const found = names.find((n) => existsSync(join(env.TAP_CWD, n)))
    if (found) env.TAP_TSCONFIG = found
  }
  if (env.TAP_TSCONFIG && env.TAP_CWD && !env.TS_NODE_PROJECT) {
    env.TS_NODE_PROJECT = resolve(env.TAP_CWD, env.TAP_TSCONFIG)
  }
}
const env = {
  ...process.env,
  TAP: '1',
  TAP_CHILD_ID: process.env.TAP_CHILD_ID || '1',
  TAP_JOB_ID: process.env.TAP_JOB_ID || '0',
  TAP_BAIL: '0',
  _TAPJS_PROCESSINFO_CWD_: root,
  _TAPJS_PROCESSINFO_EXCLUDE_: String(/(^(node|tapmock):|[\\\/](\.tap|tap-snapshots)[\\\/])/),
  _TAPJS_PROCESSINFO_COVERAGE_: '0',
}
for (const e of config.get('test-env') || []) {
  const at = e.indexOf('=')
  if (at < 0) delete env[e]
  else env[e.slice(0, at)] = e.slice(at + 1)
}
// The file as tap names it: from the project's root, where the test runs.
const named = relative(root, resolve(file))
const child = spawn(process.execPath, [...argv, named, ...(config.get('test-arg') || [])], {
  cwd: root,
  env,
  stdio: 'inherit',
})
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig))
child.on('error', (e) => fail(`failed to start node: ${e.message}`))
child.on('exit', (code, signal) => {
  if (signal) process.kill(process.pid, signal)
  else process.exit(code ?? 1)
})
