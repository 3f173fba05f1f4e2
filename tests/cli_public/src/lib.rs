//! The `rein` command's own source (`src/cli/`), compiled as a client of rein's public API:
//! here `rein::…` is the rein crate as an embedder gets it (no `internals` feature, and no
//! way into its private layers), so any reach past what the crate root exports fails to build.
//! `.ci/run` builds this crate; the `rein` binary itself is built from the same files inside
//! rein (feature `cli`), so the two cannot drift.

#[path = "../../../src/cli/mod.rs"]
pub mod cli;
