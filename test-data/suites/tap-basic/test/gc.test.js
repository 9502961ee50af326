import t from 'tap'

t.test('runs with the node-arg of .taprc', t => {
  t.equal(typeof globalThis.gc, 'function')
  t.end()
})
