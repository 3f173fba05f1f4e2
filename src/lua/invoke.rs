//! Running Lua for a call: a tool by name (from the host or from `rein.tool`), or a function
//! (a recipe step), each as part of its call, with failures coming back as values.

use mlua::{Function, IntoLuaMulti, Lua, MultiValue, Table, Value};
use serde_json::json;

use crate::error::{Code, Failure};
use crate::kernel::events::Ended;
use crate::kernel::{Call, EventKind};
use crate::lua::limits::Breach;
use crate::lua::{convert, current_call, failure, state};

/// Calls tool `name` as a child of `parent`: arguments validated, its own actor, its own
/// `ctx`. A child deeper than the limits allow is a breach.
pub async fn tool(
    lua: &Lua,
    parent: &Call,
    name: &str,
    args: &serde_json::Value,
) -> Result<serde_json::Value, Failure> {
    let max = state::limits(lua).tool_depth;
    if parent.depth() >= max {
        return Err(failure::breach_failure(Breach::ToolDepth(max)));
    }
    // rein's own code (a built-in recipe, the built-in prelude it runs, a built-in tool) gets
    // rein's own tools: a project file under the same name must not answer for them.
    let for_rein = parent.actor().is_some_and(|actor| actor.is_reins_own());
    let tool = state::tool(lua, name, for_rein).ok_or_else(|| tool_not_found(lua, name, for_rein))?;
    let call = tool.annotations.bind(parent.acting_as(tool.actor.clone()), &tool.actor.name);
    let mut ending = Ending::start(&call);
    let result = run_tool(lua, &call, &tool, args).await;
    ending.ended = Some(match &result {
        Ok(_) => Ended::Ok,
        Err(failure) => Ended::Failed(failure.code.clone()),
    });
    result
}

/// Tells the call's listeners a tool started, and that it ended however it ends: with its
/// result, or cancelled when the call is dropped mid-way (an MCP cancel, a timed-out step).
struct Ending<'a> {
    call: &'a Call,
    started: std::time::Instant,
    ended: Option<Ended>,
}

impl Ending<'_> {
    fn start(call: &Call) -> Ending<'_> {
        call.emit(|| EventKind::ToolStarted {
            tool: actor_name(call),
            depth: call.depth(),
            origin: call.actor().map(|a| a.origin()),
            file: call.actor().and_then(|a| a.file()).map(str::to_string),
        });
        Ending { call, started: std::time::Instant::now(), ended: None }
    }
}

impl Drop for Ending<'_> {
    fn drop(&mut self) {
        let ended = self.ended.take().unwrap_or(Ended::Failed(Code::Cancelled));
        let duration_ms = self.started.elapsed().as_millis() as u64;
        self.call.emit(|| EventKind::ToolEnded {
            tool: actor_name(self.call),
            depth: self.call.depth(),
            ended,
            duration_ms,
        });
    }
}

fn actor_name(call: &Call) -> String {
    call.actor().map(|a| a.name.clone()).unwrap_or_default()
}

async fn run_tool(
    lua: &Lua,
    call: &Call,
    tool: &state::CallableTool,
    args: &serde_json::Value,
) -> Result<serde_json::Value, Failure> {
    let args = tool.params.validate(args)?;
    for secret in tool.params.secret_values(&args) {
        call.secrets().add(&secret);
    }
    let lua_args = convert::json_to_lua(lua, &args).map_err(|e| internal("pass the arguments", e))?;
    let ctx = tool_ctx(lua, call).map_err(|e| internal("build the call context", e))?;
    let values = function(lua, call.clone(), &tool.run, (lua_args, ctx)).await?;
    Ok(values.into_iter().next().unwrap_or(serde_json::Value::Null))
}

/// Calls `function` with `args` as part of `call`; returns every value it returned.
pub async fn function(
    lua: &Lua,
    call: Call,
    function: &Function,
    args: impl IntoLuaMulti,
) -> Result<Vec<serde_json::Value>, Failure> {
    let run = state::helpers(lua).run.clone();
    let mut call_args = args.into_lua_multi(lua).map_err(|e| internal("pass the arguments", e))?;
    call_args.push_front(Value::Function(function.clone()));
    // A fresh thread each call, never one kept for reuse (mlua would, with a thread pool): a
    // budget error raised before `run` reaches its xpcall leaves its thread with hooks off, and
    // the next call on that thread would run without a budget.
    let thread = lua.create_thread(run).map_err(|e| internal("start the call's thread", e))?;
    let work = thread.into_async::<MultiValue>(call_args).map_err(|e| internal("start the call", e))?;
    let outcome = current_call::within(call, work).await;
    finish(lua, outcome)
}

/// `(true, values...)` or `(false, error)` from the bootstrap's `run`, as values or a Failure.
fn finish(lua: &Lua, outcome: mlua::Result<MultiValue>) -> Result<Vec<serde_json::Value>, Failure> {
    let mut values = outcome.map_err(|err| failure::from_mlua_error(lua, &err))?.into_iter();
    match values.next() {
        Some(Value::Boolean(true)) => values
            .map(|value| convert::try_lua_to_json(lua, value))
            .collect::<mlua::Result<_>>()
            .map_err(|e| Failure::new(Code::LuaError, format!("the tool returned a value JSON cannot hold: {e}"))),
        _ => Err(failure::from_lua_error(lua, values.next().unwrap_or(Value::Nil))),
    }
}

fn tool_ctx(lua: &Lua, call: &Call) -> mlua::Result<Table> {
    // A fresh table without a metatable: raw sets (no protected call per field).
    let ctx = lua.create_table_with_capacity(0, 3)?;
    ctx.raw_set("tool", call.actor().map(|a| a.name.as_str()).unwrap_or_default())?;
    ctx.raw_set("workspace", state::kernel(lua).scope().workspace().to_string_lossy().as_ref())?;
    ctx.raw_set("depth", call.depth())?;
    Ok(ctx)
}

fn tool_not_found(lua: &Lua, name: &str, for_rein: bool) -> Failure {
    let available = state::tool_names(lua, for_rein);
    let suggestions = crate::error::closest_names(name, available.iter().map(String::as_str));
    let hint = crate::error::did_you_mean(&suggestions);
    Failure::new(Code::ToolNotFound, format!("no tool named {name:?}.{hint} `rein tools` lists the tools."))
        .with_details(json!({"tool": name, "suggestions": suggestions, "available": available}))
}

pub(crate) fn internal(what: &str, err: mlua::Error) -> Failure {
    Failure::new(Code::LuaError, format!("rein could not {what}: {err}"))
}
