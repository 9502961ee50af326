// tapline's list of what V8 compiled, shared by the trace hook (tapline-trace.cjs) and the warm
// worker's driver (src/harness/node/warm): every script V8 compiled and still holds, as node's inspector
// lists them (`Debugger.enable` replays a `scriptParsed` for each), as `{ file, module }` with
// whether each is an ES module; a string saying why not when there is no inspector. It never
// throws.
'use strict';
module.exports = function compiled() {
  let session;
  try {
    const { Session } = require('inspector');
    const { fileURLToPath } = require('url');
    session = new Session();
    session.connect();
    const files = [];
    session.on('Debugger.scriptParsed', ({ params }) => {
      const url = params && params.url;
      if (typeof url !== 'string') return;
      const module = params.isModule === true;
      if (url.startsWith('file:')) {
        try { files.push({ file: fileURLToPath(url), module }); } catch (_) { /* not a file's URL */ }
      } else if (url.startsWith('/')) {
        files.push({ file: url, module });
      }
    });
    // An in-process session answers synchronously: every event has come when post returns.
    let answer;
    session.post('Debugger.enable', (err) => { answer = err || 'ok'; });
    session.post('Debugger.disable', () => {});
    if (answer === undefined) return 'the inspector did not list the ES modules';
    return answer === 'ok' ? files : `the inspector would not list the ES modules (${answer.message})`;
  } catch (e) {
    return `no inspector to list the ES modules (${e && e.code ? e.code : 'unavailable'})`;
  } finally {
    try { if (session) session.disconnect(); } catch (_) { /* already gone */ }
  }
};
