const { total } = require('../lib/price.js');
console.log('1..1');
console.log(total(1, 2, 3) === 6 ? 'ok 1 - total' : 'not ok 1 - total');
