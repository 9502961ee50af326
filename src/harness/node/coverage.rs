//! node's and tsx's coverage engine: V8's precise coverage, which node writes into the folder
//! `NODE_V8_COVERAGE` names (a folder per test file), one JSON file per process; the runner
//! reads that JSON (`run::coverage::v8`, the format a page's coverage shares).
use crate::coverage::Lang;
use crate::harness::api::Id;
use crate::harness::trace::CoverageEngine;
use std::ffi::OsString;
use std::path::Path;

pub(crate) struct V8;
pub(crate) static V8_COVERAGE: V8 = V8;

/// The variable naming the folder V8 writes to.
const VAR: &str = "NODE_V8_COVERAGE";

impl CoverageEngine for V8 {
    fn id(&self) -> Id {
        "node"
    }

    fn lang(&self) -> Lang {
        Lang::new("node")
    }

    fn ext(&self) -> &'static str {
        ".v8"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx"]
    }

    fn dependency_dirs(&self) -> &'static [&'static str] {
        &["node_modules"]
    }

    fn file_env(&self, out: &Path) -> Vec<(OsString, OsString)> {
        vec![(VAR.into(), out.as_os_str().to_owned())]
    }

    fn writes_v8(&self) -> bool {
        true
    }
}
