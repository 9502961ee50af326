const { shout } = await import('../lib/name.js');
console.log('1..1');
console.log(shout('a') === 'A' ? 'ok 1 - shout' : 'not ok 1 - shout');
