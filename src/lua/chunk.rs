//! Lua source as the scripting host sees it: a chunk with a label for error messages, compiled
//! as text (never a binary chunk) in an environment of its own, and where modules for
//! `require` come from (the host decides: prelude/ and tools/ folders, packs).

use mlua::{ChunkMode, Function, Lua};

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
/// leak into another.
pub fn compile(lua: &Lua, chunk: &Chunk) -> mlua::Result<Function> {
    let env = lua.create_table()?;
    let meta = lua.create_table()?;
    meta.set("__index", lua.globals())?;
    env.set_metatable(Some(meta))?;
    lua.load(chunk.text.as_str())
        .set_name(format!("@{}", chunk.label))
        .set_mode(ChunkMode::Text)
        .set_environment(env)
        .into_function()
}
