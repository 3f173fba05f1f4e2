//! What rein knows about the HarmonyOS/OpenHarmony toolchain, in one room: the programs, their
//! command grammars, where they are installed, what they may reach while they run, their
//! signing material, device leases, the hdc server check, package staging and received files.
//! The kernel (`crate::kernel`) is generic; this room uses it and plugs into it.

pub mod confinement;
pub mod deveco_env;
pub mod discovery;
pub mod grammar;
pub mod hdc_server;
pub mod hdc_servers;
pub mod java_args;
pub mod keystore_pins;
pub mod lease;
pub mod material;
pub mod programs;
pub mod project;
pub mod received;
pub mod signing;
pub mod stage;
#[cfg(test)]
mod table;
pub mod toolchain;
