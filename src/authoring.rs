//! What a tool author's tooling needs, for `rein types`, `rein init` and `rein new` as for an
//! editor plugin: the editor stubs of the Lua API, the names rein accepts for tools, recipes
//! and packs, which files rein ships, and rein's entry in an MCP client's project file.
//!
//! ```
//! assert!(rein::authoring::is_tool_name("app_version"));
//! assert!(!rein::authoring::is_pack_name("Team_Kit"));
//! assert!(rein::authoring::is_built_in("tools/read_file.lua"));
//! ```

use std::path::Path;

use crate::error::Failure;

pub use crate::host::mcp_clients::{
    add as add_mcp_entry, entry as mcp_entry, McpAddError, McpAdded, McpClient, McpEntry,
};
pub use crate::host::types::{LuarcOutcome, Written as TypesWritten, DEFAULT_DIR as TYPES_DIR};
pub use crate::kernel::scope::protected::PROJECT_FILE;

/// Writes the lua-language-server stubs of the Lua API (and selene's `rein.yml`) into `dir`,
/// and points `workspace`'s `.luarc.json` at them. A host serving native modules writes them
/// with its modules: [`Host::write_types`](crate::Host::write_types).
pub fn write_types(workspace: &Path, dir: &Path) -> Result<TypesWritten, Failure> {
    Ok(crate::host::types::write(workspace, dir)?)
}

/// Writes `text` to `path` atomically, with its folders; a file that already holds `text` is
/// left as it is.
pub fn write_generated(path: &Path, text: &str) -> Result<(), Failure> {
    Ok(crate::host::types::write_generated(path, text)?)
}

/// Whether `name` is a tool name rein accepts: lowercase letters, digits and `_`, starting
/// with a letter.
pub fn is_tool_name(name: &str) -> bool {
    crate::lua::tool::valid_tool_name(name)
}

/// Whether `name` is a recipe name rein accepts: lowercase letters, digits, `-` and `_`,
/// starting with a letter.
pub fn is_recipe_name(name: &str) -> bool {
    crate::recipe::spec::valid_recipe_name(name)
}

/// Whether `name` is a pack name rein accepts: kebab-case, starting with a letter.
pub fn is_pack_name(name: &str) -> bool {
    crate::packs::manifest::valid_pack_name(name)
}

/// Whether rein ships the Lua file `rel` (`tools/read_file.lua`, `recipes/build-verify.lua`).
pub fn is_built_in(rel: &str) -> bool {
    crate::host::sources::builtin_files().iter().any(|(path, _)| *path == rel)
}
