//! What every native reaches through the Lua state's app data: the kernel, where modules come
//! from, the limits, and the tools of this generation. All of it is fixed once the state is
//! loaded; what changes per call travels with the call (see `current_call`).

use std::sync::Arc;

use mlua::{Function, Lua};

use crate::kernel::{Actor, Kernel};
use crate::lua::chunk::Modules;
use crate::lua::limits::Limits;
use crate::lua::schema::Params;

pub struct HostData {
    pub kernel: Arc<Kernel>,
    pub modules: Arc<dyn Modules>,
    pub limits: Limits,
}

/// A tool callable in this state.
#[derive(Clone)]
pub struct CallableTool {
    pub params: Params,
    pub run: Function,
    /// Who acts while it runs: its name and pack (kept when `[overrides]` serves it under
    /// another name, so a pack's permissions follow its code).
    pub actor: Actor,
}

/// Tools by the name they are called with.
#[derive(Default, Clone)]
pub struct ToolTable(pub std::collections::HashMap<String, CallableTool>);

/// The bootstrap's helpers: `run` calls a function with failures returned as values, `raising`
/// turns a native's `(false, failure)` into a raised structured error.
pub struct Helpers {
    pub run: Function,
    pub raising: Function,
    pub read_output: Function,
}

pub(crate) fn host(lua: &Lua) -> mlua::AppDataRef<'_, HostData> {
    lua.app_data_ref::<HostData>().expect("HostData is set when the runtime is built")
}

pub(crate) fn kernel(lua: &Lua) -> Arc<Kernel> {
    host(lua).kernel.clone()
}

pub(crate) fn limits(lua: &Lua) -> Limits {
    host(lua).limits
}

pub(crate) fn helpers(lua: &Lua) -> mlua::AppDataRef<'_, Helpers> {
    lua.app_data_ref::<Helpers>().expect("the bootstrap ran")
}

pub(crate) fn tool(lua: &Lua, name: &str) -> Option<CallableTool> {
    lua.app_data_ref::<ToolTable>().and_then(|t| t.0.get(name).cloned())
}

pub(crate) fn tool_names(lua: &Lua) -> Vec<String> {
    let mut names: Vec<String> =
        lua.app_data_ref::<ToolTable>().map(|t| t.0.keys().cloned().collect()).unwrap_or_default();
    names.sort();
    names
}
