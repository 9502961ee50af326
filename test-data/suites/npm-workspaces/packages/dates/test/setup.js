// Loaded by mocha before every spec (`--require`): the specs use this global.
global.dates = require('../index.js');
