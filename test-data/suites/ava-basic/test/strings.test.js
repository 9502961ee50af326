import test from 'ava';
import {shout, words} from '../lib/strings.js';
import {sample} from './helpers/sample.js';

test('shouts', t => {
	t.is(shout('hi'), 'HI!');
});

test('splits words', t => {
	t.deepEqual(words(sample()), ['a', 'b', 'c']);
});

test.skip('handles right-to-left text', t => {
	t.fail('not written yet');
});
