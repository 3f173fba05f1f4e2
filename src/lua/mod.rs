//! The sandboxed scripting host. Lua reaches the OS only through the natives in `api/`, which
//! call the kernel with the call they run for.
//!
//! - `runtime`: one Lua state (sandbox, bootstrap, limits) and the ways into it
//! - `pool`: a generation's states, each on a thread of its own, lent one call at a time, and
//!   the watchdog that gives up a stuck one
//! - `meter`: what a call's Lua spent, counted by the hook, the allocator and the library
//! - `invoke`: running a tool or a function as part of a call, failures as values
//! - `current_call`: the call the running Lua belongs to
//! - `state`: what natives reach (kernel, modules, limits, the loaded tools)
//! - `api/`: the `rein` namespace, one module per area
//! - `native/`: the embedder's own modules (`rein.<name>`), acting through the kernel
//! - `tool`, `schema`, `annotations`: a tool's declaration, its parameter schema and what it
//!   says about its effects
//! - `compiled`: the host's own cache of what it compiled (bytecode by file and text)
//! - `chunk`, `require`: Lua source; files compiled as text, each in its own environment, and
//!   the modules they require
//! - `limits`, `failure`, `convert`: budgets, errors across the boundary, JSON <-> Lua
//! - `error_place`: the tool's own `file:line` and the traceback of a script's error
//! - `pattern`: Lua 5.4 patterns (`string.find` and friends) that the budget can stop

pub mod annotations;
pub mod api;
pub mod chunk;
pub(crate) mod compiled;
pub mod convert;
pub mod current_call;
pub mod declaration;
mod error_place;
pub mod failure;
pub mod invoke;
pub mod limits;
pub mod meter;
pub mod native;
mod pattern;
pub mod pool;
pub mod require;
pub mod runtime;
pub mod schema;
pub mod state;
pub mod tool;

pub use chunk::{Chunk, Modules};
pub use limits::Limits;
pub use native::{NativeCall, NativeFunction, NativeModule, NativeParam};
pub use runtime::Runtime;
pub use state::{CallableTool, ToolTable};
