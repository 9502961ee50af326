// tapbundle parallel tests: their console output interleaves, and a failing
// parallel test prints its error after its `not ok`.
import { tap, expect } from '@push.rocks/tapbundle';

tap.testParallel('slow passing test', async (tools) => {
  console.log('slow test starts');
  await tools.delayFor(50);
  console.log('slow test ends');
});

tap.testParallel('fast failing test', async (tools) => {
  console.log('fast test starts');
  await tools.delayFor(10);
  expect('actual').toEqual('expected');
});

tap.test('sequential test after them', async () => {
  console.log('sequential test output');
});

export default tap.start();
