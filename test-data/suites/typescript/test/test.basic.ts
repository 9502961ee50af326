const { square } = require('./helpers.ts');
console.log('TAP version 13');
console.log('1..2');
console.log(square(3) === 9 ? 'ok 1 - squares' : 'not ok 1 - squares');
console.log(square(0) === 0 ? 'ok 2 - squares zero' : 'not ok 2 - squares zero');
