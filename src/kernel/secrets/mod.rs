//! Secrets: what rein must never show. (The signing passwords rein fills in, and the flags
//! that carry them, are the toolchain profile's: `crate::harmony::signing`.)
//!
//! - `scrub`: the values a call must never show ([`Secrets`]), scrubbed from everything that
//!   leaves rein on the call's behalf
//! - `redact`: secrets out of command lines (the values of the profile's secret flags) and
//!   program output

pub mod redact;
pub mod scrub;

pub use scrub::Secrets;
