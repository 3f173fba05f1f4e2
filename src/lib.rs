//! rein: a small kernel that owns every side effect, hosting Lua tools and recipes that drive
//! the HarmonyOS/OpenHarmony toolchain.

pub mod checks;
pub mod config;
pub mod doctor;
pub mod error;
pub mod host;
pub mod kernel;
pub mod lua;
pub mod mcp;
pub mod packs;
pub mod recipe;
pub mod registry;
pub mod sources;

pub use error::{Code, Failure};
pub use host::{Host, HostBuilder};
