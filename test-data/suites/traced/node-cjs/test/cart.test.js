const { cartTotal } = require('../lib/cart.js');
console.log('1..1');
console.log(cartTotal([2, 3]) === 5 ? 'ok 1 - cart total' : 'not ok 1 - cart total');
