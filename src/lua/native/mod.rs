//! Native modules: Rust functions an embedding program gives its scripts as `rein.<name>.*`
//! (`HostBuilder::module("ide", module)` makes `rein.ide.open(...)`). Each function declares
//! its parameters, returns and doc like rein's own natives, so it is checked when called,
//! shown in `rein types` stubs and sealed read-only like the rest of `rein`. It runs with a
//! [`NativeCall`]: a handle on the kernel for the call it serves, so whatever it reads,
//! writes or runs is checked by the same scope, approvals, pack permissions and journal as a
//! script's own `rein.fs` and `rein.proc` calls. It never gets a path to open by itself.
//!
//! - `module`: a module, its functions and their declared types
//! - `handle`: what a native function may do, through the kernel
//! - `install`: the functions in a Lua state, arguments checked against their declaration
//! - `stubs`: the modules as lua-language-server stubs and selene globals

mod handle;
pub(crate) mod install;
mod module;
pub(crate) mod stubs;

pub use handle::NativeCall;
pub use module::{NativeFunction, NativeModule, NativeModules, NativeParam};
