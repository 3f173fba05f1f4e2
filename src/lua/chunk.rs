//! Lua source as the scripting host sees it: a chunk with a label for error messages, compiled
//! as text (never a binary chunk) in an environment of its own, and where modules for
//! `require` come from (the host decides: prelude/ and tools/ folders, packs).

use mlua::{ChunkMode, Function, Lua, Table};

/// The registry key of the read-only globals every chunk reads through.
pub(crate) const GLOBALS: &str = "rein.globals";

/// One Lua file.
#[derive(Debug, Clone)]
pub struct Chunk {
    /// How errors name it: `tools/x.lua`, `<built-in>/tools/x.lua`, `team-kit/tools/x.lua`.
    pub label: String,
    pub text: String,
}

/// Finds modules for `require`.
pub trait Modules: Send + Sync {
    /// Module `name` (dotted, already checked to be a valid name), if there is one.
    fn find(&self, name: &str) -> std::io::Result<Option<Chunk>>;
    /// Where `name` would be looked for, for the error when it is not found.
    fn looked_in(&self, name: &str) -> String;
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
    env.raw_set(
        "require",
        lua.create_function(move |lua, name: String| crate::lua::require::require_from(lua, &modules, name))?,
    )?;
    let meta = lua.create_table()?;
    // The read-only globals themselves (the globals table only forwards to them), so a
    // global lookup costs one table index.
    let globals = match lua.named_registry_value::<mlua::Value>(GLOBALS)? {
        mlua::Value::Table(sealed) => sealed,
        _ => lua.globals(),
    };
    meta.set("__index", globals)?;
    env.set_metatable(Some(meta))?;
    lua.load(chunk.text.as_str())
        .set_name(format!("@{}", chunk.label))
        .set_mode(ChunkMode::Text)
        .set_environment(env)
        .into_function()
}
