//! Planning a run without processes: which of the discovered files this machine runs
//! ([`partition`]) and where a CI engine says this machine's shard is ([`engine`]).
pub mod engine;
pub mod partition;
