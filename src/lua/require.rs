//! Files compiled into environments of their own, and rein's own `require`: each file gets
//! its own globals and its own copies of the modules it requires, and modules come only from
//! where the host says (prelude/ and the tools' folders of the built-ins, the packs and the
//! project), never from the filesystem at large. A file's `require` compiles what it asks for,
//! so the two live here together.

use mlua::{ChunkMode, Function, Lua, Table, Value};

use crate::lua::chunk::Chunk;
use crate::lua::state;

/// The registry key of the read-only globals every chunk reads through.
pub(crate) const GLOBALS: &str = "rein.globals";

const CACHE_KEY: &str = "rein.modules";

/// Marks a module whose file is running, to catch circular requires.
const LOADING: &str = "\0loading";

/// The global `require` (for chunks a script loads itself): modules shared among those only.
pub fn require(lua: &Lua, name: String) -> mlua::Result<Value> {
    require_from(lua, &cache(lua)?, name)
}

/// Module `name`, loaded once into `cache` (the modules of one file and what it requires).
pub fn require_from(lua: &Lua, cache: &Table, name: String) -> mlua::Result<Value> {
    if !valid_module_name(&name) {
        return Err(mlua::Error::runtime(format!(
            "module name {name:?} is not valid: use dotted names like \"harmony.hdc\""
        )));
    }
    match cache.get::<Value>(name.as_str())? {
        Value::Nil => {}
        Value::String(s) if s.as_bytes() == LOADING.as_bytes() => {
            return Err(mlua::Error::runtime(format!("module {name:?} requires itself (a require cycle)")));
        }
        cached => return Ok(cached),
    }
    let modules = state::host(lua).modules.clone();
    let found = modules.find(&name).map_err(|e| mlua::Error::runtime(format!("module {name:?}: {e}")))?;
    let Some(file) = found else {
        return Err(mlua::Error::runtime(format!(
            "module {name:?} not found: looked for {}",
            modules.looked_in(&name)
        )));
    };
    cache.set(name.as_str(), LOADING)?;
    let loaded = compile_sharing(lua, &file, cache.clone()).and_then(|chunk| chunk.call::<Value>(name.as_str()));
    let value = match loaded {
        Ok(Value::Nil) => Value::Boolean(true),
        Ok(value) => value,
        Err(err) => {
            cache.set(name.as_str(), Value::Nil)?;
            return Err(err);
        }
    };
    cache.set(name.as_str(), value.clone())?;
    Ok(value)
}

/// Compiles `chunk` in an environment of its own, so top-level globals of one file do not
/// leak into another, with modules of its own: what it requires is loaded for it (and the
/// modules it requires), so nothing it does to a module's table reaches another file.
pub fn compile(lua: &Lua, chunk: &Chunk) -> mlua::Result<Function> {
    compile_sharing(lua, chunk, lua.create_table()?)
}

/// [`compile`], sharing `modules` (loaded modules by name) with the file that required it.
pub(crate) fn compile_sharing(lua: &Lua, chunk: &Chunk, modules: Table) -> mlua::Result<Function> {
    let env = lua.create_table()?;
    env.raw_set("require", lua.create_function(move |lua, name: String| require_from(lua, &modules, name))?)?;
    let meta = lua.create_table()?;
    // The read-only globals themselves (the globals table only forwards to them), so a
    // global lookup costs one table index.
    let globals = match lua.named_registry_value::<mlua::Value>(GLOBALS)? {
        mlua::Value::Table(sealed) => sealed,
        _ => lua.globals(),
    };
    meta.set("__index", globals)?;
    env.set_metatable(Some(meta))?;
    crate::lua::compiled::load(lua, &chunk.label, &chunk.text, Some(env))
}

/// Whether `chunk` compiles (without running it, in a state of its own): the syntax error,
/// with its file:line, if not.
pub fn check_syntax(chunk: &Chunk) -> Result<(), crate::error::Failure> {
    let lua = Lua::new_with(mlua::StdLib::NONE, mlua::LuaOptions::new())
        .map_err(|e| crate::lua::invoke::internal("create a Lua state", e))?;
    lua.load(&*chunk.text)
        .set_name(format!("@{}", chunk.label))
        .set_mode(ChunkMode::Text)
        .into_function()
        .map(drop)
        .map_err(|err| crate::lua::failure::from_mlua_error(&lua, &err))
}

/// Module names are dotted identifiers, so a name can never walk out of its folder.
pub fn valid_module_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .split('.')
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
}

fn cache(lua: &Lua) -> mlua::Result<Table> {
    match lua.named_registry_value::<Value>(CACHE_KEY)? {
        Value::Table(t) => Ok(t),
        _ => {
            let t = lua.create_table()?;
            lua.set_named_registry_value(CACHE_KEY, &t)?;
            Ok(t)
        }
    }
}
