// node:test file that throws outside any test after one passing test.
import { test } from 'node:test';

test('passes before the crash', () => {});

setTimeout(() => {
  throw new Error('uncaught error outside a test');
}, 0);
