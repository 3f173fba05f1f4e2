//! The host's own compiled chunks. Every tool file compiles its own copy of each module it
//! requires (a file's environment is its own), and every Lua state of a generation loads the
//! same files: parsing the same text again and again was most of the time a host took to
//! start. So the host compiles each text once and keeps the bytecode Lua made of it, in
//! memory, keyed by the file's label and its whole text; the next state or file that needs
//! the same text loads that bytecode instead. rein's own chunks (the built-in tools, recipes
//! and prelude, the bootstrap) come compiled already: the build compiles them
//! (`build/bytecode.rs`) and the binary holds that bytecode beside their text. Bytecode never
//! comes from, nor goes to, anywhere a script or an agent can reach: scripts still load text
//! only (`load` in the bootstrap), and `string.dump` is gone.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use mlua::{ChunkMode, Function, Lua, Table};

/// What the cache holds at most before it starts over (all the built-ins compile to ~1 MiB).
const MAX_BYTES: usize = 32 << 20;

#[derive(Default)]
struct Cache {
    /// Label → the text last compiled under it, and its bytecode.
    chunks: HashMap<String, (Arc<str>, Arc<[u8]>)>,
    bytes: usize,
}

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

fn cache() -> MutexGuard<'static, Option<Cache>> {
    CACHE.lock().unwrap_or_else(|e| e.into_inner())
}

/// `text` as a function of `lua`, named `@label` in error messages and tracebacks, with `env`
/// as its environment (the state's globals when None).
pub(crate) fn load(lua: &Lua, label: &str, text: &str, env: Option<Table>) -> mlua::Result<Function> {
    let name = format!("@{label}");
    if let Some(bytecode) = cached(label, text) {
        return load_binary(lua, &bytecode, &name, env);
    }
    if let Some(bytecode) = precompiled(label, text) {
        // A build whose bytecode this Lua does not take (its header differs) compiles the text.
        if let Ok(function) = load_binary(lua, bytecode, &name, env.clone()) {
            return Ok(function);
        }
    }
    let chunk = lua.load(text).set_name(name).set_mode(ChunkMode::Text);
    let function = match env {
        Some(env) => chunk.set_environment(env),
        None => chunk,
    }
    .into_function()?;
    keep(label, text, function.dump(false));
    Ok(function)
}

fn load_binary(lua: &Lua, bytecode: &[u8], name: &str, env: Option<Table>) -> mlua::Result<Function> {
    let chunk = lua.load(bytecode).set_name(name).set_mode(ChunkMode::Binary);
    match env {
        Some(env) => chunk.set_environment(env),
        None => chunk,
    }
    .into_function()
}

mod built {
    include!(concat!(env!("OUT_DIR"), "/precompiled.rs"));
}

/// The bytecode the build made of `text` under `label`, if `text` is still what it compiled.
fn precompiled(label: &str, text: &str) -> Option<&'static [u8]> {
    built::PRECOMPILED.iter().find(|(l, t, _)| *l == label && *t == text).map(|(_, _, code)| *code)
}

fn cached(label: &str, text: &str) -> Option<Arc<[u8]>> {
    let guard = cache();
    let (kept, bytecode) = guard.as_ref()?.chunks.get(label)?;
    (**kept == *text).then(|| bytecode.clone())
}

fn keep(label: &str, text: &str, bytecode: Vec<u8>) {
    let mut guard = cache();
    let cache = guard.get_or_insert_with(Cache::default);
    let size = text.len() + bytecode.len();
    if cache.bytes + size > MAX_BYTES {
        *cache = Cache::default();
    }
    if let Some((old_text, old_code)) = cache.chunks.insert(label.to_string(), (text.into(), bytecode.into())) {
        cache.bytes -= old_text.len() + old_code.len();
    }
    cache.bytes += size;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_text_loads_from_bytecode_and_a_changed_text_is_compiled_again() {
        let lua = Lua::new();
        let label = "compiled-test/a.lua";
        let first = load(&lua, label, "return 1 + 1", None).unwrap();
        assert_eq!(first.call::<i64>(()).unwrap(), 2);
        assert!(cached(label, "return 1 + 1").is_some());
        let again = load(&lua, label, "return 1 + 1", None).unwrap();
        assert_eq!(again.call::<i64>(()).unwrap(), 2);
        let changed = load(&lua, label, "return 2 + 2", None).unwrap();
        assert_eq!(changed.call::<i64>(()).unwrap(), 4, "a changed file is never served from the old bytecode");
    }

    #[test]
    fn the_built_in_chunks_come_compiled_and_a_changed_text_is_not_served_their_bytecode() {
        let (label, text) = ("<rein>/bootstrap.lua", include_str!("bootstrap.lua"));
        if env!("REIN_LUA_PRECOMPILED") != "yes" {
            assert!(built::PRECOMPILED.is_empty(), "a cross build holds no bytecode");
            let lua = Lua::new();
            load(&lua, label, text, None).expect("compiled from its text");
            assert!(cached(label, text).is_some(), "compiled once, kept for the next state");
            return;
        }
        let bytecode = precompiled(label, text).expect("the build compiled the bootstrap");
        assert!(bytecode.starts_with(b"\x1bLua"), "Lua bytecode starts with ESC Lua");
        let lua = Lua::new();
        load_binary(&lua, bytecode, &format!("@{label}"), None).expect("this Lua takes the build's bytecode");
        let tool = "<built-in>/tools/read_file.lua";
        let read_file = include_str!("../../tools/read_file.lua");
        assert!(precompiled(tool, read_file).is_some(), "every built-in file comes compiled");
        assert!(precompiled(tool, "return {}").is_none(), "a text other than the one compiled is compiled anew");
        assert!(precompiled("tools/read_file.lua", read_file).is_none(), "a project file never gets rein's bytecode");
    }

    #[test]
    fn errors_still_name_the_file_and_line() {
        let lua = Lua::new();
        let label = "compiled-test/b.lua";
        let text = "local x = 1\nerror('boom')";
        for _ in 0..2 {
            let err = load(&lua, label, text, None).unwrap().call::<()>(()).unwrap_err();
            assert!(err.to_string().contains("compiled-test/b.lua:2: boom"), "{err}");
        }
    }

    #[test]
    fn each_load_gets_its_own_environment() {
        let lua = Lua::new();
        let label = "compiled-test/c.lua";
        for value in [1, 2] {
            let env = lua.create_table().unwrap();
            env.set("v", value).unwrap();
            let f = load(&lua, label, "return v", Some(env)).unwrap();
            assert_eq!(f.call::<i64>(()).unwrap(), value);
        }
    }
}
