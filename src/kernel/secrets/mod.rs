//! Secrets: what rein must never show, and the signing passwords it fills in itself.
//!
//! - `scrub`: the values a call must never show ([`Secrets`]), scrubbed from everything that
//!   leaves rein on the call's behalf
//! - `material`: the keystore and key alias a signing config's passwords go with (no oracle)
//! - `redact`: secrets out of command lines and program output
//! - `signing`: hap-sign-tool's password flags (the one list), and the signing passwords the
//!   kernel fills in from the environment a person named

pub mod redact;
pub mod scrub;

pub use scrub::Secrets;
