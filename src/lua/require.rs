//! rein's own `require`: modules come only from where the host says (prelude/ and the tools'
//! folders of the built-ins, the packs and the project), never from the filesystem at large.

use mlua::{Lua, Table, Value};

use crate::lua::{chunk, state};

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
    let loaded = chunk::compile_sharing(lua, &file, cache.clone()).and_then(|chunk| chunk.call::<Value>(name.as_str()));
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
