//! The `ctx` a recipe step receives: its arguments, earlier outputs, and a few methods.

use mlua::{Lua, Table};
use serde_json::Value;

use crate::lua::convert;

const CTX_METHODS: &str = r#"
local ctx, attach = ...
ctx._evidence = rein.json.array({})
ctx._attachments = {}
function ctx:attach(kind, content, label)
  local ok, result = attach(self, kind, content, label)
  if not ok then
    rein.error(result.code, result.message, result.details)
  end
  return result
end
function ctx:tool(name, args) return rein.tool(name, args or {}) end
function ctx:log(message, fields) rein.log.info(message, fields) end
function ctx:evidence(text) table.insert(self._evidence, tostring(text)) end
return ctx
"#;

pub fn make_ctx(
    lua: &Lua,
    args: &Value,
    outputs: &Value,
    step: &str,
    run_id: &str,
    attempt: u32,
) -> mlua::Result<Table> {
    let ctx = lua.create_table()?;
    ctx.set("args", convert::json_to_lua(lua, args)?)?;
    ctx.set("outputs", convert::json_to_lua(lua, outputs)?)?;
    ctx.set("step", step)?;
    ctx.set("run_id", run_id)?;
    ctx.set("attempt", attempt)?;
    let attach = super::attach::attach_function(lua, run_id)?;
    crate::lua::compiled::load(lua, "<rein>/recipe_ctx.lua", CTX_METHODS, None)?.call((ctx, attach))
}

pub fn evidence_of(ctx: &Table) -> Vec<String> {
    ctx.get::<Table>("_evidence")
        .map(|t| t.sequence_values::<String>().filter_map(Result::ok).collect())
        .unwrap_or_default()
}
