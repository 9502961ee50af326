// tapline: TypeScript's own places under tsx (src/harness/node/source_maps.rs). tsx before
// 4.7.2 writes no source map when node's Error.prepareStackTrace is a function, which it is on
// node 20.12+ (tsx#506): a hooks module registered ahead of tsx's clears it in the hooks
// thread, where tsx's loader runs, so tsx writes its map and --enable-source-maps reads it.
// Only in a process tsx's loader runs in, and only its main thread: a hooks thread costs a
// process that runs none a thread, and ts-node's hooks are not node's.
'use strict';
const { register } = require('node:module');
const { isMainThread } = require('node:worker_threads');
const tsx = /(^|[=/\\])tsx([/\\]|$)/;
if (register && isMainThread && process.execArgv.some((a) => tsx.test(a))) {
  register('data:text/javascript,Error.prepareStackTrace=undefined');
}
