import { label } from '../lib/dom.js';
console.log('1..1');
console.log(label('b') === '<b>' ? 'ok 1 - label' : 'not ok 1 - label');
