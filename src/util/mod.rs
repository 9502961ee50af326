//! Small things several rooms need, written once: finding a program on PATH, paths resolved
//! by name, dates as reports print them, a folder's `00init` module, command lines split,
//! a tool asked a question quietly.
pub(crate) mod paths;
pub(crate) mod quiet;
pub(crate) mod shell;
pub(crate) mod source_map;
pub(crate) mod time;
pub(crate) mod which;

/// FNV-1a, 64 bits: a stable hash of names (a log's, a shard's), the same on every machine
/// and run, unlike std's.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
