//! The parser's integration tests (one binary): every stream of the repository against the
//! reference parser's recorded results, any chunking of the input, and hostile input.
mod chunking;
mod conformance;
mod robustness;
mod util;
