// tapbundle example: smartexpect's assertions whose message names both sides
// (`…, but got Y`), one naming the expected side only (`toEqual`), relations, a
// drilled-down path, and output before and after a failure.
import { tap, expect } from '@push.rocks/tapbundle';

const config = { name: 'tapline', retries: 2, tags: ['a', 'b'], nested: { on: 'yes' } };

tap.test('is true', async () => {
  console.log('checking the flag');
  expect(config.retries > 3).toBeTrue();
});

tap.test('is false', async () => {
  expect(config.tags).toBeFalse();
});

tap.test('is null at a path', async () => {
  expect(config).property('nested').toBeNull();
});

tap.test('is undefined', async () => {
  expect(config.name).toBeUndefined();
});

tap.test('property equals', async () => {
  expect(config).toHaveProperty('name', 'tapline, but got more');
});

tap.test('passes in between', async () => {
  console.log('output of the passing test');
  expect(config.tags).toHaveLength(2);
});

tap.test('has a length', async () => {
  expect(config.tags).toHaveLength(3);
});

tap.test('equals an object', async () => {
  expect(config.nested).toEqual({ on: 'no' });
});

tap.test('is greater than', async () => {
  expect(config.retries).toBeGreaterThan(5);
});

tap.test('a string with quotes and a backslash', async () => {
  expect('say "hi" \\ there').toBeNull();
});

export default tap.start();
