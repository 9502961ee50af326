#!/usr/bin/env node
// Records the reference parser's (tapjs tap-parser) result for TAP streams, in the schema
// tests/integration/conformance.rs compares: {parser, complete, asserts}, where `complete` is
// tap-parser's final result and each assert carries the subtest it closes (nested the same
// way). A subtest that no test point closed is listed as a bare {subtest} entry.
// Usage: node conformance-record.js OUT_DIR FILE.tap... (run by scripts/record-conformance.sh)
'use strict'
const fs = require('fs')
const path = require('path')
const { Parser } = require('tap-parser')
const version = require('tap-parser/package.json').version

const directive = v => (v === undefined ? false : v)

// Follows one parser (the stream or a subtest) and fills `out`.
function follow (parser, out) {
  let pending = null
  parser.on('child', child => {
    if (pending) out.asserts.push({ subtest: pending })
    pending = { name: child.name, asserts: [], complete: null }
    follow(child, pending)
  })
  parser.on('assert', a => {
    const entry = {
      id: a.id === undefined ? null : a.id,
      ok: a.ok,
      name: a.name || '',
      todo: directive(a.todo),
      skip: directive(a.skip),
    }
    if (pending) entry.subtest = pending
    pending = null
    out.asserts.push(entry)
  })
  parser.on('complete', r => {
    if (pending) out.asserts.push({ subtest: pending })
    pending = null
    out.complete = {
      ok: r.ok,
      count: r.count,
      pass: r.pass,
      fail: r.fail,
      todo: r.todo,
      skip: r.skip,
      bailout: r.bailout,
      plan: {
        start: r.plan.start,
        end: r.plan.end,
        skipAll: r.plan.skipAll,
        skipReason: r.plan.skipReason,
        comment: r.plan.comment,
      },
    }
  })
}

function record (file) {
  const out = { parser: `tap-parser@${version}`, complete: null, asserts: [] }
  const p = new Parser()
  follow(p, out)
  p.end(fs.readFileSync(file))
  return out
}

const [outDir, ...files] = process.argv.slice(2)
if (!outDir || files.length === 0) {
  console.error('usage: conformance-record.js OUT_DIR FILE.tap...')
  process.exit(2)
}
fs.mkdirSync(outDir, { recursive: true })
for (const f of files) {
  const dest = path.join(outDir, path.basename(f, '.tap') + '.json')
  fs.writeFileSync(dest, JSON.stringify(record(f), null, 1) + '\n')
}
