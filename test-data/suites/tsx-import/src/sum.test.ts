import { test } from 'node:test'
import assert from 'node:assert/strict'

import { sum, type Numbers } from './sum.js'

type Case = { xs: Numbers; want: number }

const cases: Case[] = [{ xs: [], want: 0 }]

test('empty', () => {
  for (const { xs, want } of cases) {
    assert.equal(sum(xs), want)
  }
})

test('one', () => {
  assert.ok(true)
})
