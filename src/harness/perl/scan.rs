//! The static scan of Perl test files (`subtest 'name'`), by the shared tokenizer.
use crate::harness::scan::{extension, tokens, Callee, Found, Syntax};

/// Whether a file named `path` is read as Perl.
pub(crate) fn reads(path: &str) -> bool {
    matches!(extension(path), Some("t" | "t2" | "pl"))
}

/// The tests of a Perl source.
pub(crate) fn scan(src: &str) -> Vec<Found> {
    tokens(src, PERL)
}

const PERL: Syntax = Syntax {
    hash_comments: true,
    callees: perl_callee,
    loops: &[],
    bare_args: true,
};

fn perl_callee(chain: &str) -> Callee {
    match chain {
        "subtest" => Callee::Test,
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
    fn perl_subtests_nest_by_their_blocks() {
        let src = "use Test::More;\n# subtest 'no';\nsubtest 'outer' => sub {\n  ok(1, 'x');\n  \
                   subtest \"inner\", sub { ok($#a) };\n};\nsubtest 'next' => sub { ok 1 };\n\
                   for my $n (1..2) { subtest \"n $n\" => sub { ok 1 } }\ndone_testing;\n";
        let got = names(src);
        let want = [
            ("outer", 3, false),
            ("outer > inner", 5, false),
            ("next", 7, false),
            ("n $n", 8, true),
        ];
        assert_eq!(got, owned(&want));
    }
}
