// tapline's dependency trace (loaded with --require): at exit, appends the files this node
// loaded to $TAPLINE_TRACE_OUT, one a line: the CommonJS ones (require.cache) and, when ES
// modules ran (an ES-module test, `import()`, a `require()` of an ES module, a loader), every
// file V8 compiled, as its inspector lists them. The ES modules stay in node's module map for
// the life of the process, so that list holds all of them, however they were reached. It
// prints nothing and never throws: a trace it cannot write is simply missing. The first node
// of a test ends its lines with a `#done` line, which tells tapline the trace is whole; one
// that ran ES modules it could not list says `#partial node: <why>`.
'use strict';
(() => {
  const out = process.env.TAPLINE_TRACE_OUT;
  if (!out) return;
  const root = !process.env.TAPLINE_TRACE_NESTED;
  process.env.TAPLINE_TRACE_NESTED = '1';
  const pid = process.pid;
  const fs = require('fs');
  const cache = require.cache;

  // Whether node's ES module loader ran a module: its module job is loaded only then.
  const ranEsm = () => {
    const list = process.moduleLoadList;
    return !Array.isArray(list) || list.some((m) => m.endsWith('internal/modules/esm/module_job'));
  };

  // What V8 compiled, beside this file (read only when ES modules ran).
  const compiled = () => require(require('path').join(__dirname, 'tapline-compiled.cjs'))();

  process.on('exit', () => {
    if (process.pid !== pid) return;
    try {
      const files = new Set(Object.keys(cache));
      let partial;
      if (ranEsm()) {
        const more = compiled();
        if (typeof more === 'string') partial = more;
        else for (const { file } of more) files.add(file);
      }
      let text = '';
      for (const file of files) text += file + '\n';
      // A process of the test's that could not list what it ran spoils the whole trace.
      if (partial) text += `#partial node: ${partial}\n`;
      else if (root) text += '#done node\n';
      fs.appendFileSync(out, text);
    } catch (_) {
      // No trace: tapline then treats the file as depending on anything.
    }
  });
})();
