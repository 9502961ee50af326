//! Snapshots of every output format for every stream in test-data/streams (filled in with the human report).
