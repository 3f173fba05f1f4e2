//! One sandboxed Lua state: only table/string/math/utf8/coroutine plus the `rein` namespace,
//! per-call limits, and the tools loaded into it.

use std::collections::HashMap;
use std::sync::Arc;

use mlua::{ChunkMode, Function, Lua, LuaOptions, StdLib, Table, Value};
use serde_json::json;

use crate::error::{Code, Failure};
use crate::kernel::Kernel;
use crate::lua::failure;
use crate::lua::limits::{self, Breach, Limits};
use crate::lua::schema::Params;
use crate::lua::tool::{self, ToolSpec};
use crate::lua::{api, convert};
use crate::sources::{SourceFile, Sources};

const BOOTSTRAP: &str = include_str!("bootstrap.lua");

/// What every native can reach through the state's app data.
pub struct HostData {
    pub kernel: Arc<Kernel>,
    pub sources: Arc<Sources>,
    pub limits: Limits,
}

/// A tool callable in this state.
#[derive(Clone)]
pub struct CallableTool {
    pub name: String,
    pub params: Params,
    pub run: Function,
}

/// Tools by name, as `rein.tool` and the host see them.
#[derive(Default, Clone)]
pub struct ToolTable(pub HashMap<String, CallableTool>);

/// The tools running now, innermost last.
#[derive(Default)]
struct CallStack(Vec<String>);

/// The bootstrap's function that runs a tool with failures returned as values.
struct Trampoline(Function);

pub struct Runtime {
    lua: Lua,
}

impl Runtime {
    pub fn new(kernel: Arc<Kernel>, sources: Arc<Sources>, limits: Limits) -> Result<Runtime, Failure> {
        let libs = StdLib::TABLE | StdLib::STRING | StdLib::MATH | StdLib::UTF8 | StdLib::COROUTINE;
        let lua = Lua::new_with(libs, LuaOptions::new()).map_err(|e| internal("create the Lua state", e))?;
        lua.set_app_data(HostData { kernel, sources, limits });
        lua.set_app_data(ToolTable::default());
        lua.set_app_data(CallStack::default());
        limits::install_hook(&lua).map_err(|e| internal("install the budget hook", e))?;
        let natives = api::natives(&lua).map_err(|e| internal("build the rein namespace", e))?;
        let trampoline: Function = lua
            .load(BOOTSTRAP)
            .set_name("@<rein>/bootstrap.lua")
            .set_mode(ChunkMode::Text)
            .call(natives)
            .map_err(|e| internal("run the bootstrap", e))?;
        lua.set_app_data(Trampoline(trampoline));
        Ok(Runtime { lua })
    }

    pub fn lua(&self) -> &Lua {
        &self.lua
    }

    pub fn limits(&self) -> Limits {
        host_data(&self.lua).limits
    }

    /// Runs a tool file (within the limits) and reads the tool it declares.
    pub fn load_tool(&self, file: &SourceFile) -> Result<ToolSpec, String> {
        let value = self.load_declaration(file)?;
        tool::parse_tool(&self.lua, value)
    }

    /// Runs a declaration file (a tool or a recipe) within the limits; returns what it returned.
    pub fn load_declaration(&self, file: &SourceFile) -> Result<Value, String> {
        limits::begin(&self.lua, self.limits()).map_err(|e| e.to_string())?;
        let value = load_chunk(&self.lua, file).and_then(|chunk| chunk.call::<Value>(()));
        let breach = limits::tripped(&self.lua);
        let result = match (value, breach) {
            (_, Some(breach)) => Err(breach.message()),
            (Ok(value), None) => Ok(value),
            (Err(err), None) => Err(failure::from_mlua_error(&self.lua, &err).message),
        };
        limits::end(&self.lua);
        result
    }

    /// Puts the state back after a call was abandoned mid-way (cancelled or timed out): no
    /// budget in force, no tool marked as running.
    pub fn recover(&self) {
        limits::end(&self.lua);
        if let Some(mut stack) = self.lua.app_data_mut::<CallStack>() {
            stack.0.clear();
        }
    }

    /// Calls a Lua function from outside Lua with a fresh budget, failures as values: the way
    /// recipe steps run. `args` are passed as they are.
    ///
    /// `acting_as` names what runs (a recipe): it counts as running, so a pack recipe's steps
    /// are held to the pack's permissions like its tools.
    pub async fn call_function(
        &self,
        acting_as: &str,
        function: &Function,
        args: impl mlua::IntoLuaMulti,
    ) -> Result<serde_json::Value, Failure> {
        let invoke = self.lua.app_data_ref::<Trampoline>().expect("bootstrap ran").0.clone();
        let mut call_args = args.into_lua_multi(&self.lua).map_err(|e| internal("pass the arguments", e))?;
        call_args.push_front(Value::Function(function.clone()));
        limits::begin(&self.lua, self.limits()).map_err(|e| internal("start the budget", e))?;
        if let Some(mut stack) = self.lua.app_data_mut::<CallStack>() {
            stack.0.push(acting_as.to_string());
        }
        let outcome = invoke.call_async::<(bool, Value)>(call_args).await;
        leave(&self.lua);
        let result = finish(&self.lua, outcome);
        if let Some(breach) = limits::end(&self.lua) {
            return Err(failure::breach_failure(breach));
        }
        result
    }

    pub fn set_tools(&self, tools: ToolTable) {
        self.lua.set_app_data(tools);
    }

    /// Calls a tool from outside Lua: a fresh budget, and the state healthy afterwards
    /// whatever the script did.
    pub async fn call(&self, name: &str, args: &serde_json::Value) -> Result<serde_json::Value, Failure> {
        let prepared = prepare(&self.lua, name, args)?;
        limits::begin(&self.lua, self.limits()).map_err(|e| internal("start the budget", e))?;
        let outcome = prepared.invoke.call_async::<(bool, Value)>(prepared.call_args).await;
        let result = finish(&self.lua, outcome);
        leave(&self.lua);
        if let Some(breach) = limits::end(&self.lua) {
            return Err(failure::breach_failure(breach));
        }
        result
    }
}

/// Calls a tool from inside a running tool (`rein.tool`), sharing the caller's budget.
/// Async, so the called tool may itself run programs (`rein.proc.run` yields).
pub async fn call_nested(lua: &Lua, name: &str, args: &serde_json::Value) -> Result<serde_json::Value, Failure> {
    let depth = lua.app_data_ref::<CallStack>().map(|s| s.0.len()).unwrap_or(0);
    let max = host_data(lua).limits.tool_depth;
    if depth >= max {
        return Err(failure::breach_failure(Breach::ToolDepth(max)));
    }
    let prepared = prepare(lua, name, args)?;
    let outcome = prepared.invoke.call_async::<(bool, Value)>(prepared.call_args).await;
    let result = finish(lua, outcome);
    leave(lua);
    result
}

/// The bootstrap's function that runs a Lua function with failures returned as values.
pub fn trampoline(lua: &Lua) -> Function {
    lua.app_data_ref::<Trampoline>().expect("bootstrap ran").0.clone()
}

/// The packs whose tools are running now, anywhere in the chain of `rein.tool` calls.
pub fn packs_in_call(lua: &Lua) -> Vec<String> {
    let stack = lua.app_data_ref::<CallStack>().map(|s| s.0.clone()).unwrap_or_default();
    let mut packs: Vec<String> =
        stack.iter().filter_map(|name| name.split_once('.').map(|(p, _)| p.to_string())).collect();
    packs.dedup();
    packs
}

/// The name of the tool running now (innermost), for logs.
pub fn current_tool(lua: &Lua) -> Option<String> {
    lua.app_data_ref::<CallStack>().and_then(|s| s.0.last().cloned())
}

pub fn host_data(lua: &Lua) -> mlua::AppDataRef<'_, HostData> {
    lua.app_data_ref::<HostData>().expect("HostData is set when the runtime is built")
}

struct Prepared {
    invoke: Function,
    call_args: (Function, Value, Table),
}

fn prepare(lua: &Lua, name: &str, args: &serde_json::Value) -> Result<Prepared, Failure> {
    let tool = lua
        .app_data_ref::<ToolTable>()
        .and_then(|t| t.0.get(name).cloned())
        .ok_or_else(|| tool_not_found(lua, name))?;
    let args = tool.params.validate(args)?;
    let lua_args = convert::json_to_lua(lua, &args).map_err(|e| internal("pass the arguments", e))?;
    let ctx = make_ctx(lua, name).map_err(|e| internal("build the call context", e))?;
    let invoke = lua.app_data_ref::<Trampoline>().expect("bootstrap ran").0.clone();
    if let Some(mut stack) = lua.app_data_mut::<CallStack>() {
        stack.0.push(name.to_string());
    }
    Ok(Prepared { invoke, call_args: (tool.run, lua_args, ctx) })
}

fn leave(lua: &Lua) {
    if let Some(mut stack) = lua.app_data_mut::<CallStack>() {
        stack.0.pop();
    }
}

fn finish(lua: &Lua, outcome: mlua::Result<(bool, Value)>) -> Result<serde_json::Value, Failure> {
    match outcome {
        Ok((true, value)) => convert::try_lua_to_json(lua, value)
            .map_err(|e| Failure::new(Code::LuaError, format!("the tool returned a value JSON cannot hold: {e}"))),
        Ok((false, err)) => Err(failure::from_lua_error(lua, err)),
        Err(err) => Err(failure::from_mlua_error(lua, &err)),
    }
}

fn make_ctx(lua: &Lua, name: &str) -> mlua::Result<Table> {
    let ctx = lua.create_table()?;
    ctx.set("tool", name)?;
    ctx.set("workspace", host_data(lua).kernel.scope().workspace().to_string_lossy().into_owned())?;
    ctx.set("depth", lua.app_data_ref::<CallStack>().map(|s| s.0.len()).unwrap_or(0) + 1)?;
    Ok(ctx)
}

fn tool_not_found(lua: &Lua, name: &str) -> Failure {
    let mut known: Vec<String> =
        lua.app_data_ref::<ToolTable>().map(|t| t.0.keys().cloned().collect()).unwrap_or_default();
    known.sort();
    Failure::new(Code::ToolNotFound, format!("no tool named {name:?}; `rein tools` lists the tools"))
        .with_details(json!({"tool": name, "available": known}))
}

fn internal(what: &str, err: mlua::Error) -> Failure {
    Failure::new(Code::LuaError, format!("rein could not {what}: {err}"))
}

/// Compiles a file as text (never a binary chunk) in an environment of its own, so top-level
/// globals of one file do not leak into another.
pub fn load_chunk(lua: &Lua, file: &SourceFile) -> mlua::Result<Function> {
    let env = lua.create_table()?;
    let meta = lua.create_table()?;
    meta.set("__index", lua.globals())?;
    env.set_metatable(Some(meta))?;
    lua.load(file.text.as_str())
        .set_name(format!("@{}", file.label))
        .set_mode(ChunkMode::Text)
        .set_environment(env)
        .into_function()
}
