// lib/name.js is loaded by a node this test starts, never by the test itself.
const { spawnSync } = require('child_process');
const r = spawnSync(process.execPath, ['-e', 'process.exit(require("./lib/name.js").shout("b") === "B" ? 0 : 1)']);
console.log('1..1');
console.log(r.status === 0 ? 'ok 1 - subprocess' : 'not ok 1 - subprocess');
