//! The mocha room seen through discovery ([`crate::harness::discovery_cases`]).
use crate::harness::discovery_cases::ScriptCase;

pub(crate) fn scripts() -> Vec<ScriptCase> {
    vec![ScriptCase {
        why: "a script whose words cannot be split says nothing, not even the harness it names",
        test: "mocha 'unterminated",
        others: &[],
        places: Vec::new(),
    }]
}
