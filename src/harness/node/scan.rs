//! The static scan of JavaScript and TypeScript test files (node:test, tape, node-tap,
//! tapbundle: `test(…)`, `describe(…)`, `it(…)`, `suite(…)`, `t.test(…)`, with
//! `.skip`/`.only`/`.todo`), by the shared tokenizer.
use crate::harness::scan::{extension, tokens, Callee, Found, Syntax};

/// Whether a file named `path` is read as JavaScript or TypeScript.
pub(crate) fn reads(path: &str) -> bool {
    matches!(
        extension(path),
        Some("js" | "mjs" | "cjs" | "ts" | "mts" | "cts" | "jsx" | "tsx")
    )
}

/// The tests of a JavaScript or TypeScript source.
pub(crate) fn scan(src: &str) -> Vec<Found> {
    tokens(src, JS)
}

const JS: Syntax = Syntax {
    hash_comments: false,
    callees: js_callee,
    loops: &["forEach", "map", "flatMap"],
    bare_args: false,
};

fn js_callee(chain: &str) -> Callee {
    let mut segs: Vec<&str> = chain.split('.').collect();
    let each = segs.last() == Some(&"each");
    while matches!(
        segs.last(),
        Some(&("skip" | "only" | "todo" | "each" | "concurrent"))
    ) {
        segs.pop();
    }
    let base = match segs.as_slice() {
        [base] => *base,
        // `t.test`, `st.test`, `tap.test`, `t.describe`: a test's own subtests.
        [owner, base] if owner.len() <= 3 || *owner == "tap" => *base,
        _ => return Callee::No,
    };
    match (base, each) {
        ("test" | "it" | "describe" | "suite" | "context" | "subtest", false) => Callee::Test,
        ("test" | "it" | "describe", true) => Callee::Each,
        _ => Callee::No,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(src: &str) -> Vec<(String, usize, bool)> {
        crate::harness::scan::names(scan, src)
    }

    use crate::harness::scan::owned;

    #[test]
    fn javascript_tests_nest_by_their_calls() {
        let src = r#"
const test = require('node:test');
// test('commented out', () => {});
describe('group', () => {
  it("inner adds", () => { assert.ok(/x/.test('x')) });
  describe.skip('deeper', () => { test('leaf', t => {}) });
});
test(`plain template`, async (t) => {
  await t.test('sub', () => {});
});
for (const n of [1, 2]) {
  test(`case ${n}`, () => {});
}
test('after the loop', () => {});
[1, 2].forEach((n) => test('row', () => {}));
test(name, () => {});
test.each([[1]])('each %s', () => {});
"#;
        let got = names(src);
        let want = [
            ("group", 4, false),
            ("group > inner adds", 5, false),
            ("group > deeper", 6, false),
            ("group > deeper > leaf", 6, false),
            ("plain template", 8, false),
            ("plain template > sub", 9, false),
            ("case ${n}", 12, true),
            ("after the loop", 14, false),
            ("row", 15, true),
            ("name", 16, true),
            ("test.each", 17, true),
        ];
        assert_eq!(got, owned(&want));
    }
}
