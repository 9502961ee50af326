const { used } = require('../lib/calc.js');
console.log('1..1');
console.log(used(1, 2) === 3 ? 'ok 1 - used' : 'not ok 1 - used');
