// tape's failures as tape means them (scripts/record-tape.sh): an ES module, so tape's `at:`
// and stack name `file:///…` URLs; object-inspect's strings (`'it\'s here'`, read as the
// string, not quoted twice) and a Date inside an object.
import test from 'tape'

test('strings', (t) => {
  t.equal('it\'s here', 'it\'s there', 'quoted string')
  t.deepEqual({ a: [1, 2], d: new Date(0) }, { a: [1, 3], d: new Date(0) }, 'objects')
  t.end()
})

test('throws', (t) => {
  t.throws(() => {}, /boom/, 'throws nothing')
  t.end()
})
