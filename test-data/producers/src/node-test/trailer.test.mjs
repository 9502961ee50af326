// node:test trailer case: the reporter's 8-line summary (`# tests` ...
// `# duration_ms`) after the plan, the last test failing. Run by the tap
// runner (node-tap-runner-trailer), the summary sits inside the file's
// subtest, right before the file's own failing point.
import { test } from 'node:test';
import assert from 'node:assert';

test('adds', () => {
  assert.strictEqual(1 + 1, 2);
});

test('divides', () => {
  assert.strictEqual(6 / 2, 4);
});
