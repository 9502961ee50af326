import { used } from '../lib/calc.ts';
console.log('1..1');
console.log(used({ a: 1, b: 2 }) === 3 ? 'ok 1 - used' : 'not ok 1 - used');
