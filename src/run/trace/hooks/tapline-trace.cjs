// tapline's dependency trace (loaded with --require): at exit, appends the CommonJS files this
// node loaded (require.cache) to $TAPLINE_TRACE_OUT, one a line. With $TAPLINE_TRACE_ESM set
// (an ES-module test) it also registers tapline-trace-hooks.mjs, which appends each ES module
// as it loads. It prints nothing and never throws: a trace it cannot write is simply missing.
// The first node of a test ends its lines with a `#done` line, which tells tapline the trace
// is whole; one that ran ES modules without the ESM hook says `#partial`.
'use strict';
(() => {
  const out = process.env.TAPLINE_TRACE_OUT;
  if (!out) return;
  const root = !process.env.TAPLINE_TRACE_NESTED;
  process.env.TAPLINE_TRACE_NESTED = '1';
  const pid = process.pid;
  const fs = require('fs');
  const cache = require.cache;
  let hooked = false;
  if (process.env.TAPLINE_TRACE_ESM) {
    try {
      const { register } = require('module');
      const { pathToFileURL } = require('url');
      const hooks = pathToFileURL(require('path').join(__dirname, 'tapline-trace-hooks.mjs'));
      register(hooks, { data: { out } });
      hooked = true;
    } catch (_) {
      // No hook (a node without module.register): a run of ES modules says `#partial`.
    }
  }
  process.on('exit', () => {
    if (process.pid !== pid) return;
    try {
      let text = '';
      for (const file of Object.keys(cache)) text += file + '\n';
      if (root) {
        const list = process.moduleLoadList;
        const esm = !Array.isArray(list) || list.some((m) => m.endsWith('internal/modules/esm/module_job'));
        text += esm && !hooked ? '#partial node\n' : '#done node\n';
      }
      fs.appendFileSync(out, text);
    } catch (_) {
      // No trace: tapline then treats the file as depending on anything.
    }
  });
})();
