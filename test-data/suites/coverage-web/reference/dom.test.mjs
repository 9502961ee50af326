// The reference for the browser page's figures: the same module measured by V8 in node,
// counted by node's own --experimental-test-coverage (tests/integration/coverage.rs).
import { label } from '../lib/dom.js';
import test from 'node:test';
test('label', () => {
  if (label('b') !== '<b>') throw new Error('label');
});
