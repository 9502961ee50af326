import t from 'tap'
import { add, sub } from '../lib/math.js'

const pair: [number, number] = [3, 1]

t.test('adds', t => {
  t.equal(add(...pair), 4)
  t.end()
})

t.test('subtracts', t => {
  t.equal(sub(...pair), 2)
  t.end()
})
