//! Browser test files: bundled (or served as native modules) and run in headless Chromium.
pub(crate) mod bundle;
pub(crate) mod imports;
pub(crate) mod source_map;
