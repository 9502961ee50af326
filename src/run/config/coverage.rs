//! `[coverage]` of `tapline.toml`: read here with the rest of the file; what the keys do is
//! the coverage collector's (`tapline run --coverage`).

/// `[coverage]` of `tapline.toml`.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// `true`: every run measures coverage, as `--coverage` asks.
    pub enabled: Option<bool>,
    /// The run fails below this percentage of lines reached (`--coverage-min`).
    pub min: Option<f64>,
    /// `true`: the test files themselves are measured too.
    pub tests: Option<bool>,
}
