//! rein: a small kernel that owns every side effect, hosting Lua tools and recipes that drive
//! the HarmonyOS/OpenHarmony toolchain.
//!
//! The layers, each using only the ones above it:
//! - `error`: the failure every layer reports (a typed [`Code`], a message, details)
//! - `kernel`: every side effect, each taking the per-call [`kernel::Call`]; no Lua here
//! - `lua`: the sandboxed scripting host and the `rein` API
//! - `recipe`: recipe specs, the engine, reports
//! - `packs`: installing and verifying shared packs
//! - `host`: the embeddable entry point ([`Host`]): generations, reload, sources, checks
//! - `mcp`: `rein serve`

pub mod error;
pub mod host;
pub mod kernel;
pub mod lua;
pub mod mcp;
pub mod packs;
pub mod recipe;

pub use error::{Code, Failure};
pub use host::{Host, HostBuilder, Subscription};
pub use kernel::{CallId, Event, EventKind, Listener};
pub use lua::{NativeCall, NativeFunction, NativeModule};
