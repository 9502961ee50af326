// Excluded by pnpm-workspace.yaml ('!packages/legacy'): never runs.
const test = require('node:test');
test('legacy is broken', () => {
  throw new Error('the excluded package ran');
});
