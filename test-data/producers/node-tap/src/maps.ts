// Built by tsc with a source map next to it (dist/maps.js, dist/maps.js.map) and run as
// `node dist/maps.js`, without --enable-source-maps: tap's YAML names the built file, which
// tapline maps back to this one (scripts/record-node-tap.sh).
import t from 'tap'

interface Point {
  x: number
  y: number
}

function moved(p: Point, by: number): Point {
  return { x: p.x + by, y: p.y }
}

t.test('points', async t => {
  const p: Point = { x: 1, y: 2 }
  t.same(moved(p, 1), { x: 2, y: 3 }, 'moves both')
})
