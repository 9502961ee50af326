//! What tapline's own reporters and drivers for JavaScript harnesses share (mocha's, jest's,
//! vitest's, ava's, loaded from the hooks' folder): `tap-common.cjs`, the TAP 14 of one test
//! file and a failure's YAML block, and `tapline-warm-pool.cjs`, the warm-worker protocol.

/// `tap-common.cjs`: its file name and text, written beside the reporter that loads it.
pub(crate) const TAP_COMMON: (&str, &str) = ("tap-common.cjs", include_str!("tap-common.cjs"));

/// `tapline-warm-pool.cjs`: the warm-worker protocol the drivers serve the pool with
/// (`src/run/worker`), written beside the driver that loads it.
pub(crate) const WARM_POOL: (&str, &str) = (
    "tapline-warm-pool.cjs",
    include_str!("tapline-warm-pool.cjs"),
);
