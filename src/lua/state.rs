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
    /// What it declares about its effects: the kernel holds its calls to them.
    pub annotations: crate::lua::annotations::Annotations,
}

/// Tools by the name they are called with: what everyone but rein's own code gets (the
/// project's definition of a name wins), and what rein's own code gets (its built-in tools,
/// unless a person's `[overrides]` names another), so code a person did not write never
/// stands in for rein's own under a built-in recipe.
#[derive(Default, Clone)]
pub struct ToolTable {
    pub served: std::collections::HashMap<String, CallableTool>,
    pub for_rein: std::collections::HashMap<String, CallableTool>,
}

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

/// The tool `name` stands for, for a caller that is rein's own code (`for_rein`) or not.
pub(crate) fn tool(lua: &Lua, name: &str, for_rein: bool) -> Option<CallableTool> {
    let table = lua.app_data_ref::<ToolTable>()?;
    let tools = if for_rein { &table.for_rein } else { &table.served };
    tools.get(name).cloned()
}

pub(crate) fn tool_names(lua: &Lua, for_rein: bool) -> Vec<String> {
    let names = |t: &ToolTable| {
        let tools = if for_rein { &t.for_rein } else { &t.served };
        tools.keys().cloned().collect::<Vec<_>>()
    };
    let mut names: Vec<String> = lua.app_data_ref::<ToolTable>().map(|t| names(&t)).unwrap_or_default();
    names.sort();
    names
}
