import test from 'ava';
import {add, range} from '../lib/math.js';

test('adds', t => {
	t.is(add(2, 3), 5);
});

test('range counts up', t => {
	t.deepEqual(range(1, 4), [1, 2, 3]);
});

test('range keeps negative numbers', t => {
	t.deepEqual(range(-2, 1), [-2, -1, 0]);
});
