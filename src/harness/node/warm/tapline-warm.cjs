// tapline's warm worker (src/run/worker/mod.rs, the pool; this file: src/harness/node/warm/): one node process that runs test files one
// after another, as `tape 'test/*.js'` runs them, each as if it were `node FILE` alone.
//
// Commands come on stdin, one JSON line per file ({"file", "env", "trace"}), read with a
// blocking read only between files: while a file runs the driver holds no handle, so node's
// event loop empties exactly when `node FILE` would exit. That moment ('beforeExit') ends the
// file: the 'exit' listeners the file added run as node would run them (tape's prints its plan
// and totals and names the exit code), then the driver writes the end marker
//   ⟦tapline-warm NONCE end CODE MICROS⟧\n
// on stdout and on stderr (stdout only when they are one pipe), and reads the next command.
// MICROS is how long the file ran, from its load to the end of its 'exit' listeners: the
// file's duration, which the worker's start (tape loaded for its first file) is no part of.
// A file that calls process.exit, throws, or never lets the loop empty ends the process
// itself: tapline sees the worker end (or times the file out) and starts a fresh one.
//
// tape keeps one harness per module instance: each file gets a fresh copy of tape's index.js
// behind one stable module object, so a helper that required tape for an earlier file
// registers its tests on this file's harness.
'use strict';
(() => {
  const fs = require('fs');
  const path = require('path');
  const Module = require('module');
  const nonce = process.env.TAPLINE_WARM_NONCE || '';
  const merged = process.env.TAPLINE_WARM_MERGED === '1';
  delete process.env.TAPLINE_WARM_NONCE;
  delete process.env.TAPLINE_WARM_MERGED;
  // NODE_EXTRA_CA_CERTS (src/harness/node/warm/extra_ca.rs): this node may have started with a file of
  // only the certificates it does not bundle (the same trust, less of node's start); the test
  // and its subprocesses see the name they were given. Without that file yet, it is written
  // here for the next workers.
  if (process.env.TAPLINE_WARM_EXTRA_CA !== undefined) {
    process.env.NODE_EXTRA_CA_CERTS = process.env.TAPLINE_WARM_EXTRA_CA;
  }
  const extraCaOut = process.env.TAPLINE_WARM_EXTRA_CA_OUT;
  delete process.env.TAPLINE_WARM_EXTRA_CA;
  delete process.env.TAPLINE_WARM_EXTRA_CA_OUT;
  if (extraCaOut) writeExtraCa(process.env.NODE_EXTRA_CA_CERTS, extraCaOut);

  // Writes `text` to `file` aside and renames it there: another worker reading it meanwhile
  // sees the old file or the new one, never half of one.
  function replaceFile(file, text) {
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  }

  // Writes to `out` the certificates of the PEM file `named` that node does not bundle, when
  // node trusts its bundled roots and every PEM block of `named` is a certificate node
  // parses: node then trusts the same with `out` as with `named`. Else nothing: the next
  // worker starts with `named` as this one did.
  function writeExtraCa(named, out) {
    try {
      const flags = process.execArgv.concat((process.env.NODE_OPTIONS || '').split(/\s+/));
      if (flags.some((f) => /^--use-(openssl|system)-ca(=|$)/.test(f))) return;
      if (process.config.variables.openssl_use_def_ca_store) return;
      const { rootCertificates } = require('tls');
      const { X509Certificate } = require('crypto');
      if (!Array.isArray(rootCertificates) || rootCertificates.length === 0) return;
      const body = (pem) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
      const bundled = new Set(rootCertificates.map(body));
      const text = fs.readFileSync(named, 'latin1');
      const begins = text.match(/^-----BEGIN /gm) || [];
      const blocks = text.match(/^-----BEGIN CERTIFICATE-----\r?\n[\s\S]*?^-----END CERTIFICATE-----\r?$/gm) || [];
      if (blocks.length !== begins.length) return;
      // A block node would not read ends its reading there: then the file stays whole. One
      // the same as a bundled root is read as node reads its own.
      const kept = blocks.filter((block) => !bundled.has(body(block)));
      for (const block of kept) new X509Certificate(block);
      replaceFile(out, kept.map((b) => b.replace(/\r/g, '') + '\n').join(''));
    } catch (_) {
      // Not written: the next worker reads the named file, as node would.
    }
  }
  // What installed packages resolve to, kept across runs in one file per project beside this
  // driver (TAPLINE_WARM_MEMO). A worker spends about a fifth of tape's load finding files:
  // package.json reads, stats, path work. Inside `node_modules` only an install changes what
  // a `require()` finds, and an install rewrites the folder or its lock (npm's
  // `.package-lock.json`, pnpm's `.modules.yaml`, yarn's state): so what a module inside a
  // `node_modules` resolves to inside one, and whether an installed module's source may call
  // `import()` (see mayImport), are remembered with a signature of each `node_modules` they
  // lie in, and forgotten when a signature, node, its flags or NODE_PATH change. A remembered
  // file that is gone is looked up again. A module outside `node_modules` (the project's
  // own, a linked package's real path) is always looked up. Not seen: a hand edit inside an
  // installed package that changes which of its files a name finds (its `main`, `exports`),
  // until the next install.
  const memo = openMemo(process.env.TAPLINE_WARM_MEMO);
  delete process.env.TAPLINE_WARM_MEMO;

  // The `node_modules` folder a path lies in (its first), or null.
  function modulesRoot(f) {
    const at = f.indexOf(`${path.sep}node_modules${path.sep}`);
    return at < 0 ? null : f.slice(0, at + 13);
  }

  // What an install changes in a `node_modules` folder.
  function signature(root) {
    let text = '';
    for (const name of ['', '.package-lock.json', '.modules.yaml', '.yarn-state.yml', '.yarn-integrity']) {
      const st = fs.statSync(name ? path.join(root, name) : root, { throwIfNoEntry: false });
      text += st ? `${st.ino}:${st.size}:${st.mtimeMs};` : '-;';
    }
    return text;
  }

  function openMemo(file) {
    const memo = {
      file,
      node: JSON.stringify([process.version, process.execArgv, process.env.NODE_OPTIONS || '', process.env.NODE_PATH || '']),
      roots: new Map(),
      resolve: new Map(),
      imports: new Map(),
      dirty: false,
    };
    if (!file) return memo;
    let doc;
    try {
      doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (_) {
      return memo;
    }
    if (!doc || doc.node !== memo.node) return memo;
    for (const [root, sig] of Object.entries(doc.roots || {})) {
      if (signature(root) === sig) memo.roots.set(root, sig);
    }
    const held = (f) => typeof f === 'string' && memo.roots.has(modulesRoot(f));
    for (const [key, found] of Object.entries(doc.resolve || {})) {
      if (held(key.slice(0, key.indexOf('\0'))) && held(found)) memo.resolve.set(key, found);
    }
    for (const [f, answer] of Object.entries(doc.imports || {})) {
      if (held(f) && typeof answer === 'boolean') memo.imports.set(f, answer);
    }
    return memo;
  }

  // Whether `f` lies in a `node_modules` folder, whose signature the memo then holds.
  function remember(f) {
    const root = modulesRoot(f);
    if (root === null) return false;
    if (!memo.roots.has(root)) memo.roots.set(root, signature(root));
    return true;
  }

  // Adds an entry to one of the memo's maps, to be written by the next saveMemo.
  function learn(map, key, value) {
    map.set(key, value);
    memo.dirty = true;
  }

  // Writes the memo when it learned something, merged with what another worker wrote
  // meanwhile (each rewrites the whole file by a rename, so a reader never sees half).
  function saveMemo() {
    if (!memo.file || !memo.dirty) return;
    memo.dirty = false;
    try {
      const other = openMemo(memo.file);
      for (const [root, sig] of other.roots) if (!memo.roots.has(root)) memo.roots.set(root, sig);
      for (const [k, v] of other.resolve) if (!memo.resolve.has(k)) memo.resolve.set(k, v);
      for (const [k, v] of other.imports) if (!memo.imports.has(k)) memo.imports.set(k, v);
      const doc = {
        node: memo.node,
        roots: Object.fromEntries(memo.roots),
        resolve: Object.fromEntries(memo.resolve),
        imports: Object.fromEntries(memo.imports),
      };
      replaceFile(memo.file, JSON.stringify(doc));
    } catch (_) {
      // Not kept: the next run looks the files up, as node would.
    }
  }

  const realResolve = Module._resolveFilename;
  Module._resolveFilename = function (request, parent, isMain, options) {
    const from = parent && parent.filename;
    if (!memo.file || isMain || options !== undefined || typeof request !== 'string'
        || typeof from !== 'string' || modulesRoot(from) === null) {
      return realResolve.apply(this, arguments);
    }
    const key = `${path.dirname(from)}\0${request}`;
    const held = memo.resolve.get(key);
    if (held !== undefined && fs.existsSync(held)) return held;
    const found = realResolve.apply(this, arguments);
    if (typeof found === 'string' && path.isAbsolute(found) && remember(from) && remember(found)) {
      learn(memo.resolve, key, found);
    }
    return found;
  };

  // What a file changes of the process that dies with `node FILE` and decides how a later
  // file ends is undone at its end: the listeners it added for uncaught exceptions and
  // unhandled rejections (one left behind would swallow a later file's crash, which that
  // file's own process would not), its uncaught-exception capture callback, and its working
  // folder. Except what a module did while it loaded (a test helper's
  // `process.on('unhandledRejection', …)`): a later file that requires it finds it loaded,
  // its load not run again, and loading it under `node FILE` would have done the same.
  // What else a file leaves in the process (a global, an environment variable, a changed
  // built-in, another event's listener) later files of its worker see, as under `tape`
  // itself (docs/run.md).
  const CRASH_EVENTS = ['uncaughtException', 'uncaughtExceptionMonitor', 'unhandledRejection', 'rejectionHandled'];
  // How many modules other than the test file are loading now, and what their loads did.
  let loading = 0;
  const keptByLoad = { listeners: new WeakSet(), cwd: false, capture: false };

  for (const method of ['on', 'addListener', 'prependListener', 'once', 'prependOnceListener']) {
    const real = process[method];
    process[method] = function (event, listener) {
      if (loading > 0 && typeof listener === 'function') keptByLoad.listeners.add(listener);
      return real.apply(this, arguments);
    };
  }
  const realChdir = process.chdir;
  process.chdir = function () {
    if (loading > 0) keptByLoad.cwd = true;
    return realChdir.apply(this, arguments);
  };
  const realCapture = process.setUncaughtExceptionCaptureCallback;
  process.setUncaughtExceptionCaptureCallback = function () {
    if (loading > 0) keptByLoad.capture = true;
    return realCapture.apply(this, arguments);
  };

  const realCompile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    if (!current || filename === current.key) return realCompile.apply(this, arguments);
    loading++;
    try {
      return realCompile.apply(this, arguments);
    } finally {
      loading--;
    }
  };

  function processState() {
    const listeners = new Map();
    for (const name of CRASH_EVENTS) listeners.set(name, process.listeners(name));
    return { listeners, cwd: process.cwd(), capture: process.hasUncaughtExceptionCaptureCallback() };
  }

  function undoSince(before) {
    try {
      for (const name of CRASH_EVENTS) {
        const was = before.listeners.get(name).slice();
        for (const l of process.listeners(name)) {
          const at = was.indexOf(l);
          if (at >= 0) was.splice(at, 1);
          else if (!keptByLoad.listeners.has(l)) process.removeListener(name, l);
        }
      }
      if (!keptByLoad.capture && !before.capture && process.hasUncaughtExceptionCaptureCallback()) {
        realCapture.call(process, null);
      }
      if (!keptByLoad.cwd && process.cwd() !== before.cwd) realChdir.call(process, before.cwd);
    } catch (_) {
      // A folder gone meanwhile: the next file starts where this one left.
    }
  }

  const EXITED = {};
  const realExit = process.exit;
  const realRemoveAll = process.removeAllListeners;
  const tapes = new Map();
  // The test files this worker ran: none is another's dependency.
  const ran = new Set();
  let pending = Buffer.alloc(0);
  let current = null;
  let over = false;

  const nap = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

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
        if (e.code === 'EAGAIN') { nap(2); continue; }
        if (e.code === 'EOF') return null;
        throw e;
      }
      if (n === 0) return null;
      pending = Buffer.concat([pending, buf.subarray(0, n)]);
    }
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

  // A fresh tape for the file, behind the module object every require('tape') returns.
  function freshTape(file) {
    let where;
    try {
      where = require.resolve('tape', { paths: [path.dirname(file)] });
    } catch (_) {
      return;
    }
    const held = tapes.get(where);
    if (held && held.unused) {
      // Loaded ahead of the worker's first file (preload): no test has touched it yet.
      held.unused = false;
      return;
    }
    if (!held) {
      delete require.cache[where];
      const entry = { real: require(where), mod: require.cache[where], unused: false };
      const forward = function tape() { return entry.real.apply(this, arguments); };
      for (const key of Object.keys(entry.real)) {
        Object.defineProperty(forward, key, {
          enumerable: true,
          configurable: true,
          get() {
            const value = entry.real[key];
            return value === entry.real ? forward : value;
          },
        });
      }
      if (entry.mod) entry.mod.exports = forward;
      tapes.set(where, entry);
      return;
    }
    delete require.cache[where];
    held.real = require(where);
    if (held.mod) require.cache[where] = held.mod;
  }

  // Loads tape from `dir` before the first command comes (while tapline still plans when it
  // started the worker early), and, with traces on, stands in for a listing of what V8
  // compiled if that started the ES-module loader (tape's dependencies `require()` a few
  // `.mjs`): every test file reaches them, and a file whose ES modules were all held at the
  // last listing takes that list instead of its own (see writeTrace).
  // The stand-in is what CommonJS cached meanwhile, which holds the `.mjs` and the CommonJS
  // modules they import: it lacks only an ES module imported by another, which a real
  // listing (60 to 80 ms of CPU a worker) finds. It is taken when every ES module tape
  // reached lies under `node_modules` and none may `import()`: an installed package changes
  // with its `package.json`, which reruns everything (docs/traces.md).
  function preload(dir, trace) {
    let where;
    try {
      where = require.resolve('tape', { paths: [dir] });
    } catch (_) {
      return;
    }
    const before = new Set(Object.keys(require.cache));
    try {
      freshTape(path.join(dir, 'x'));
    } catch (_) {
      // A tape that does not load: the first file meets the same error, as its own.
      tapes.delete(where);
      delete require.cache[where];
      return;
    }
    const entry = tapes.get(where);
    if (entry) entry.unused = true;
    if (trace && esmLoaded()) {
      const added = Object.keys(require.cache).filter((f) => !before.has(f));
      const installed = (f) => f.split(path.sep).includes('node_modules');
      const exact = added.some((f) => (/\.m[jt]s$/.test(f) && !installed(f)) || mayImport(f));
      const list = exact
        ? compiled()
        : added.map((f) => ({ file: f, module: /\.m[jt]s$/.test(f) }));
      lastCompiled = { list, cached: new Set(Object.keys(require.cache)) };
    }
  }

  function start(cmd) {
    const file = path.resolve(cmd.file);
    ran.add(file);
    let cached = file;
    try { cached = require.resolve(file); } catch (_) { /* the cache key is the path */ }
    current = {
      cmd,
      file,
      key: cached,
      began: process.hrtime.bigint(),
      exits: process.listeners('exit').slice(),
      env: {},
      esm: esmLoaded(),
      // What CommonJS had compiled before the file: the rest was compiled during it.
      cjsBefore: new Set(Object.keys(require.cache)),
    };
    const env = Object.assign({}, cmd.env || {});
    if (cmd.trace) env.TAPLINE_TRACE_NESTED = '1';
    for (const key of Object.keys(env)) {
      current.env[key] = process.env[key];
      process.env[key] = env[key];
    }
    process.exitCode = undefined;
    current.before = processState();
    freshTape(file);
    process.argv[1] = file;
    // Outside any try: what it throws is uncaught, and ends the worker as it ends `node FILE`.
    setImmediate(() => Module._load(file, null, true));
  }

  // The 'exit' listeners the file added, run as node runs them at exit: in order, until one
  // calls process.exit, whose code is then the file's.
  function emulateExit() {
    let code = Number(process.exitCode) | 0;
    const added = process.listeners('exit').filter((l) => !current.exits.includes(l));
    for (const l of added) process.removeListener('exit', l);
    process.exit = function (c) {
      if (c !== undefined && c !== null) code = Number(c) | 0;
      else if (process.exitCode !== undefined) code = Number(process.exitCode) | 0;
      throw EXITED;
    };
    process.removeAllListeners = function (event) {
      if (event === 'exit' || event === undefined) return process;
      return realRemoveAll.apply(process, arguments);
    };
    try {
      for (const l of added) l.call(process, code);
    } catch (e) {
      if (e !== EXITED) {
        process.exit = realExit;
        process.removeAllListeners = realRemoveAll;
        throw e;
      }
    }
    process.exit = realExit;
    process.removeAllListeners = realRemoveAll;
    process.exitCode = undefined;
    return code;
  }

  // Whether node's ES-module loader has run in this process.
  function esmLoaded() {
    const list = process.moduleLoadList;
    return !Array.isArray(list) || list.some((m) => m.endsWith('internal/modules/esm/module_job'));
  }

  // What V8 compiled (written beside this driver, shared with the trace hook).
  const compiled = () => require(path.join(__dirname, 'tapline-compiled.cjs'))();

  // The worker's last list of what V8 compiled and the modules CommonJS held then (see
  // writeTrace).
  let lastCompiled = null;

  // Whether a CommonJS module may `import()` an ES module, which no module lists as a child
  // and only a listing finds (the loader ran before the file, so that does not tell): its
  // source says `import(` outside a comment (JSDoc types write `{import('./x')}` on every
  // line of some packages; a string holding `/*` can hide a call, which then goes unlisted).
  // A file that cannot be read may. Asked of every module a
  // file reached (a helper an earlier file loaded may import() for this one), its source read
  // once for the worker's life: CommonJS compiles a module once.
  const importers = new Map();
  function mayImport(f) {
    let answer = importers.get(f);
    if (answer === undefined) answer = memo.imports.get(f);
    if (answer === undefined) {
      answer = sourceImports(f);
      if (memo.file && remember(f)) learn(memo.imports, f, answer);
    }
    importers.set(f, answer);
    return answer;
  }

  function sourceImports(f) {
    if (!/\.[cm]?[jt]sx?$/.test(f)) return false;
    let text;
    try {
      text = fs.readFileSync(f, 'latin1');
    } catch (_) {
      return true;
    }
    for (let at = text.indexOf('import('); at >= 0; at = text.indexOf('import(', at + 7)) {
      const line = text.slice(text.lastIndexOf('\n', at) + 1, at);
      const inBlock = text.lastIndexOf('/*', at) > text.lastIndexOf('*/', at);
      if (!inBlock && !/^\s*\*/.test(line) && !/(^|\s)\/\//.test(line)) return true;
    }
    return false;
  }

  // What the file loaded: its module and, through each module's children, what they loaded
  // (a module cached by an earlier file is still its parent's child). ES modules are no
  // module's children: when the file reached one (a `require()` of an ES module, an `.mjs`),
  // or node's ES-module loader first ran during it, the trace adds what V8 compiled during
  // the file and every ES module the worker holds (which file uses an ES module loaded
  // before it cannot be told), but the other test files it ran: more than the file loaded
  // when it shares ES modules with earlier files, never less.
  // Listing what V8 compiled replays every script through the inspector (about 0.1 s a
  // file), so it is asked only when the file loaded an ES module or started the loader; a
  // file whose ES modules were all held at the last listing (tape's own dependencies
  // `require()` a few `.mjs`, so every tape file reaches them; the worker lists once after
  // loading tape, before its first file) gets that list, which holds what they import. A
  // dynamic `import()` leaves no child either: a file reaching a module whose source may
  // call it is listed afresh.
  function writeTrace(out, file, esmBefore, cjsBefore) {
    try {
      const seen = new Set();
      const stack = [require.cache[file]];
      while (stack.length > 0) {
        const m = stack.pop();
        if (!m || seen.has(m.filename)) continue;
        seen.add(m.filename);
        for (const c of m.children || []) stack.push(c);
      }
      let esm = !esmBefore && esmLoaded();
      let esmHeld = false;
      for (const f of seen) {
        if (/\.m[jt]s$/.test(f)) {
          if (cjsBefore.has(f) && lastCompiled && lastCompiled.cached.has(f)) esmHeld = true;
          else esm = true;
        } else if (!esm && mayImport(f)) {
          esm = true;
        }
      }
      let partial;
      if (esm || esmHeld) {
        if (esm) lastCompiled = { list: compiled(), cached: new Set(Object.keys(require.cache)) };
        const more = lastCompiled.list;
        if (typeof more === 'string') partial = more;
        else {
          for (const { file: f, module } of more) {
            const now = module || !cjsBefore.has(f);
            if (now && (f === file || !ran.has(f))) seen.add(f);
          }
        }
      }
      let text = '';
      for (const f of seen) text += f + '\n';
      fs.appendFileSync(out, text + (partial ? `#partial node: ${partial}\n` : '#done node\n'));
    } catch (_) {
      // No trace: tapline then treats the file as depending on anything.
    }
  }

  function finish() {
    const code = emulateExit();
    const took = (process.hrtime.bigint() - current.began) / 1000n;
    if (current.cmd.trace) writeTrace(current.cmd.trace, current.key, current.esm, current.cjsBefore);
    undoSince(current.before);
    for (const name of Object.keys(current.env)) {
      if (current.env[name] === undefined) delete process.env[name];
      else process.env[name] = current.env[name];
    }
    current = null;
    // Before the marker: an idle worker may be killed at the run's end as soon as it is seen.
    saveMemo();
    const marker = '\u27e6tapline-warm ' + nonce + ' end ' + code + ' ' + took + '\u27e7\n';
    writeAll(1, marker);
    if (!merged) writeAll(2, marker);
  }

  if (process.env.TAPLINE_WARM_PRELOAD) {
    preload(process.env.TAPLINE_WARM_PRELOAD, process.env.TAPLINE_WARM_TRACE === '1');
  }
  saveMemo();
  delete process.env.TAPLINE_WARM_PRELOAD;
  delete process.env.TAPLINE_WARM_TRACE;

  process.on('beforeExit', () => {
    if (current) finish();
    if (over) return;
    const cmd = readCommand();
    if (!cmd) {
      over = true;
      return;
    }
    start(cmd);
  });
})();
