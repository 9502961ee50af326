//! What tapline's own reporters for JavaScript harnesses share (mocha's, and any harness that
//! loads a reporter of tapline's from the hooks' folder): `tap-common.cjs`, the TAP 14 of one
//! test file and a failure's YAML block.

/// `tap-common.cjs`: its file name and text, written beside the reporter that loads it.
pub(crate) const TAP_COMMON: (&str, &str) = ("tap-common.cjs", include_str!("tap-common.cjs"));
