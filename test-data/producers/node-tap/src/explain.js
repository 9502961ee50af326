// node-tap's failures as tap means them (scripts/record-node-tap.sh): a test's logs and
// comments before its subtests (never parts of their names), tap's value fields (`diff`,
// `found`/`doNotWant`, `pattern`, `compare`) and a thrown error (`type`).
'use strict'
const t = require('tap')

t.test('outer', async t => {
  console.log('{')
  console.log('  "logged": true')
  console.log('}')
  t.comment(JSON.stringify({ commented: 1 }, null, 2))
  t.test('inner', async t => {
    t.equal(1, 2, 'fails')
  })
})

t.test('values', async t => {
  t.same({ a: 1, b: [1, 2] }, { a: 1, b: [1, 3] }, 'same objects')
  t.equal('hello there', 'hello world', 'equal strings')
  t.match('hello there', /world/, 'match a pattern')
  t.notSame([1], [1], 'not same')
  t.equal(undefined, null, 'undefined null')
})

t.test('thrown', async t => {
  throw new TypeError('boom')
})
