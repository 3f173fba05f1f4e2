//! `rein mcp add`: rein's entry for one workspace in an MCP client's own project file, in that
//! client's form (each cited from the client's documentation below), merged into what the file
//! holds. What is there is never replaced: another server stays as it was, an entry named
//! `rein` that differs is refused, and a file rein cannot read as the client's plain JSON or
//! TOML is refused; a refusal writes nothing.
//!
//! - `json_config`: `.mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json` (key order kept)
//! - `toml_config`: Codex's `.codex/config.toml` (comments and layout kept, by toml_edit)

mod json_config;
mod toml_config;

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{json, Value};

use crate::error::{Code, Failure};
use crate::kernel::files::dir::{Dir, Place};
use crate::kernel::files::read::read_optional_text_in;
use crate::kernel::files::write::write_in;
use crate::visible::shown_path;

/// The MCP clients whose project file `rein mcp add` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpClient {
    /// Claude Code: `.mcp.json` at the project root, `{"mcpServers": {NAME: {command, args}}}`
    /// (code.claude.com/docs/en/mcp, "MCP installation scopes": project scope).
    ClaudeCode,
    /// Codex: `[mcp_servers.NAME]` with `command`, `args`, `tool_timeout_sec` in the project's
    /// `.codex/config.toml`, read in trusted projects (developers.openai.com/codex/mcp; openai/codex
    /// `docs/config.md`). Its default tool timeout, 60 s, is shorter than a build.
    Codex,
    /// Cursor: `.cursor/mcp.json` in the project, `{"mcpServers": {NAME: {command, args}}}`
    /// (cursor.com/docs/mcp).
    Cursor,
    /// VS Code: `.vscode/mcp.json` in the workspace, `{"servers": {NAME: {"type": "stdio",
    /// command, args}}}` (code.visualstudio.com/docs/copilot/reference/mcp-configuration).
    VsCode,
}

/// How much longer than Codex's 60 s default a call of rein may run: a build or a recipe.
const CODEX_TOOL_TIMEOUT_S: i64 = 3600;

/// The name rein's server goes under in every client's file.
pub const SERVER_NAME: &str = "rein";

impl McpClient {
    /// Every client, in the order `rein mcp add --help` lists them.
    pub const ALL: [McpClient; 4] = [McpClient::ClaudeCode, McpClient::Codex, McpClient::Cursor, McpClient::VsCode];

    /// The client's name on rein's command line: `claude-code`, `codex`, `cursor`, `vscode`.
    pub fn name(&self) -> &'static str {
        match self {
            McpClient::ClaudeCode => "claude-code",
            McpClient::Codex => "codex",
            McpClient::Cursor => "cursor",
            McpClient::VsCode => "vscode",
        }
    }

    /// The client's project file, relative to the workspace.
    pub fn config_file(&self) -> &'static str {
        match self {
            McpClient::ClaudeCode => ".mcp.json",
            McpClient::Codex => ".codex/config.toml",
            McpClient::Cursor => ".cursor/mcp.json",
            McpClient::VsCode => ".vscode/mcp.json",
        }
    }

    /// The key of the file's table of servers.
    fn servers_key(&self) -> &'static str {
        match self {
            McpClient::ClaudeCode | McpClient::Cursor => "mcpServers",
            McpClient::VsCode => "servers",
            McpClient::Codex => "mcp_servers",
        }
    }

    /// What the client needs beyond the file, from its documentation.
    pub fn next_step(&self) -> &'static str {
        match self {
            McpClient::ClaudeCode => {
                "Claude Code asks you to approve a project's servers when it starts in this folder"
            }
            McpClient::Codex => "Codex reads a project's .codex/config.toml only when you trust the project",
            McpClient::Cursor => "switch the server on under MCP in Cursor's settings",
            McpClient::VsCode => "start it from the MCP view (or `MCP: List Servers`) in VS Code",
        }
    }
}

/// rein's entry for one client and workspace, and where it goes.
#[derive(Debug, Clone, Serialize)]
pub struct McpEntry {
    /// The client's name (`claude-code` …).
    pub client: &'static str,
    /// The client's file, absolute.
    pub file: String,
    /// The server's entry, as the file holds it under the name `rein`.
    pub entry: Value,
    /// The smallest file that holds the entry, in the file's own format: what `--print`
    /// shows, and what to merge by hand when rein refuses.
    pub text: String,
    #[serde(skip)]
    client_kind: McpClient,
    #[serde(skip)]
    path: PathBuf,
    #[serde(skip)]
    workspace: PathBuf,
}

/// What [`add`] did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case", tag = "action")]
pub enum McpAdded {
    /// The entry was written; `kept` are the other servers the file names, left as they were.
    #[allow(missing_docs)]
    Added { kept: Vec<String> },
    /// The file already held this very entry; nothing was written.
    #[allow(missing_docs)]
    Unchanged { kept: Vec<String> },
}

/// The entry that runs `program` as rein's MCP server on `workspace`, for `client`.
pub fn entry(client: McpClient, workspace: &Path, program: &Path) -> McpEntry {
    let workspace = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf());
    let program = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
    let mut entry = serde_json::Map::new();
    if client == McpClient::VsCode {
        entry.insert("type".into(), json!("stdio"));
    }
    entry.insert("command".into(), json!(shown_path(&program)));
    entry.insert("args".into(), json!(["--workspace", shown_path(&workspace), "serve"]));
    if client == McpClient::Codex {
        entry.insert("tool_timeout_sec".into(), json!(CODEX_TOOL_TIMEOUT_S));
    }
    let entry = Value::Object(entry);
    let text = match client {
        McpClient::Codex => toml_config::fresh(client.servers_key(), &entry),
        _ => json_config::fresh(client.servers_key(), &entry),
    };
    let path = workspace.join(client.config_file());
    McpEntry { client: client.name(), file: shown_path(&path), entry, text, client_kind: client, path, workspace }
}

/// Why rein wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum McpAddError {
    /// The file names a server `rein` with another entry.
    #[error(
        "{file} already has an MCP server named rein, with another entry: {existing}. rein changes no entry it did not write: remove that one (or make it this one) and run this again; rein's entry is\n{text}"
    )]
    #[allow(missing_docs)]
    Exists { file: String, existing: Value, text: String },
    /// The file cannot be read as the client's form.
    #[error("rein leaves {file} as it is: {why}. Add rein's entry yourself:\n{text}")]
    #[allow(missing_docs)]
    Invalid { file: String, why: String, text: String },
    /// Writing failed.
    #[error("cannot write {file}: {why}; nothing was changed")]
    #[allow(missing_docs)]
    Write { file: String, why: String },
}

impl From<McpAddError> for Failure {
    fn from(err: McpAddError) -> Failure {
        let message = err.to_string();
        match err {
            McpAddError::Exists { file, existing, .. } => {
                Failure::new(Code::McpEntryExists, message).with_details(json!({"file": file, "existing": existing}))
            }
            McpAddError::Invalid { file, why, .. } => {
                Failure::new(Code::McpConfigInvalid, message).with_details(json!({"file": file, "why": why}))
            }
            McpAddError::Write { file, .. } => Failure::new(Code::IoError, message).with_details(json!({"file": file})),
        }
    }
}

/// What merging the entry into a file's text came to.
enum Merged {
    Write { text: String, kept: Vec<String> },
    Unchanged { kept: Vec<String> },
    Exists(Value),
    Invalid(String),
}

/// Merges `entry` into its client's file and writes it atomically; refuses (writing nothing)
/// when the file names another `rein`, is not the client's plain form, or is not a plain file.
pub fn add(entry: &McpEntry) -> Result<McpAdded, McpAddError> {
    let invalid = |why: String| McpAddError::Invalid { file: entry.file.clone(), why, text: entry.text.clone() };
    // The agent may write the workspace: a client folder or file it made a link would have rein
    // merge into a file of the person's elsewhere (a person's global config, say). The folder is
    // opened once, beneath the workspace without following a link, and the read and the write
    // both go through that handle: a folder swapped for a link after the check changes nothing.
    let linked = |folder: &Path| format!("{} is a link; rein writes only into a plain folder", shown_path(folder));
    let folder = entry.path.parent().unwrap_or(&entry.workspace);
    let root = Dir::open_path(&entry.workspace).map_err(|e| invalid(e.to_string()))?;
    let place = match Place::beneath(&root, &entry.path, false) {
        Ok(place) => Some(place),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !is_link(folder) => None,
        Err(_) if is_link(folder) => return Err(invalid(linked(folder))),
        Err(e) => return Err(invalid(e.to_string())),
    };
    let existing = match &place {
        Some(place) => read_optional_text_in(place).map_err(|e| invalid(e.to_string()))?,
        None => None,
    };
    let key = entry.client_kind.servers_key();
    let merged = match entry.client_kind {
        McpClient::Codex => toml_config::merge(existing.as_deref(), key, &entry.entry),
        _ => json_config::merge(existing.as_deref(), key, &entry.entry),
    };
    match merged {
        Merged::Unchanged { kept } => Ok(McpAdded::Unchanged { kept }),
        Merged::Exists(existing) => {
            Err(McpAddError::Exists { file: entry.file.clone(), existing, text: entry.text.clone() })
        }
        Merged::Invalid(why) => Err(invalid(why)),
        Merged::Write { text, kept } => {
            let failed = |why: String| McpAddError::Write { file: entry.file.clone(), why };
            let place = match place {
                Some(place) => place,
                None => Place::beneath(&root, &entry.path, true).map_err(|e| failed(e.to_string()))?,
            };
            write_in(&place, &entry.file, std::iter::once(text.as_bytes()), || Ok(()))
                .map_err(|e| failed(e.to_string()))?;
            Ok(McpAdded::Added { kept })
        }
    }
}

/// Whether `path` is itself a link (not followed).
fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}
