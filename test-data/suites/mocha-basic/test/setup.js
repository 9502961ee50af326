'use strict';
// Loaded by .mocharc.yml's `require`: the spec files use this global, so a
// file run without the project's configuration fails with a ReferenceError.
const path = require('node:path');

global.lib = (name) => require(path.join(__dirname, '..', 'lib', name));
