console.log('TAP version 13\n# upper');
console.log('a'.toUpperCase() === 'A' ? 'ok 1 upper' : 'not ok 1 upper');
console.log('\n1..1');
