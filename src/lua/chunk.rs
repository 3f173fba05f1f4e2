//! Lua source as the scripting host sees it: a chunk with a label for error messages, and
//! where modules for `require` come from (the host decides: prelude/ and tools/ folders,
//! packs). `require` compiles them.

/// One Lua file.
#[derive(Debug, Clone)]
pub struct Chunk {
    /// How errors name it: `tools/x.lua`, `<built-in>/tools/x.lua`, `team-kit/tools/x.lua`.
    pub label: String,
    /// Shared, not copied: every file that requires a module gets the same text.
    pub text: std::sync::Arc<str>,
}

/// Finds modules for `require`.
pub trait Modules: Send + Sync {
    /// Module `name` (dotted, already checked to be a valid name), if there is one.
    fn find(&self, name: &str) -> std::io::Result<Option<Chunk>>;
    /// Where `name` would be looked for, for the error when it is not found.
    fn looked_in(&self, name: &str) -> String;
}
