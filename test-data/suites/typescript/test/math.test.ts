console.log('TAP version 13');
console.log('1..1');
console.log(Math.max(1, 2) === 2 ? 'ok 1 - max' : 'not ok 1 - max');
