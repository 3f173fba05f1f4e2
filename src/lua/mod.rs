//! The scripting host. Lua reaches the OS only through the natives in `api/`, which call the
//! kernel.

pub mod api;
pub mod convert;
pub mod failure;
pub mod limits;
pub mod recipe;
pub mod require;
pub mod runtime;
pub mod schema;
pub mod tool;

pub use limits::Limits;
pub use runtime::Runtime;
