// node:test under tsx: the TypeScript lines, not the transpiled ones (scripts/record-node-test.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';

type Point = { x: number; y: number };

function move(p: Point, by: number): Point {
  return { x: p.x + by, y: p.y };
}

test('moves right', () => {
  assert.deepEqual(move({ x: 1, y: 2 }, 1), { x: 2, y: 2 });
});

test('moves up', () => {
  const moved: Point = move({ x: 1, y: 2 }, 1);
  assert.deepEqual(moved, { x: 1, y: 3 });
});

test('calls a missing method', () => {
  const p = move({ x: 0, y: 0 }, 1) as unknown as { scale: () => void };
  p.scale();
});
