//! tapline's one integration-test binary (ripgrep style): each module a concern, regression
//! tests named after what they guard.
mod browser;
mod chunking;
mod conformance;
mod daemon;
mod discover;
mod failure_rendering;
mod first_hour;
mod formats;
mod history;
mod html;
mod isolation;
mod live;
mod live_state;
mod reports;
mod robustness;
mod run;
mod run_like_harness;
mod sharding;
mod snapshots;
mod spec_examples;
mod suites;
mod trace;
mod trailing_output;
mod util;
mod verdict_invariant;
mod watch;
