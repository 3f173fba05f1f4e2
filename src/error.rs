//! The structured failure every layer reports: a stable machine code, a message that says
//! what to do next, and details a caller can act on.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Stable error codes (shared/DESIGN.md; never renamed, only added), and the codes tools
/// define for themselves. Serialized as the code's text, e.g. `"OLD_STRING_NOT_UNIQUE"`.
///
/// `PATH_OUTSIDE_WORKSPACE` stays reserved in the docs but is never produced: a path outside
/// the workspace asks for approval (`APPROVAL_REQUIRED`) instead.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Code {
    /// `INVALID_ARGS`: the arguments do not fit the tool's schema, or a path is malformed.
    InvalidArgs,
    /// `TOOL_NOT_FOUND`: no tool of that name (`details.suggestions`, `details.available`).
    ToolNotFound,
    /// `FILE_NOT_FOUND`: the file does not exist.
    FileNotFound,
    /// `NOT_A_FILE`: the path is a folder or another kind of file.
    NotAFile,
    /// `BINARY_FILE`: the file is not text.
    BinaryFile,
    /// `TOO_LARGE`: the file is too large to read or edit as text.
    TooLarge,
    /// `EMPTY_OLD_STRING`: an edit with nothing to find.
    EmptyOldString,
    /// `NO_CHANGE`: an edit that would change nothing.
    NoChange,
    /// `OLD_STRING_NOT_FOUND`: the text to replace is not there (`details.candidates`).
    OldStringNotFound,
    /// `OLD_STRING_NOT_UNIQUE`: the text to replace is there more than once (`details.locations`).
    OldStringNotUnique,
    /// `STALE_FILE`: the file changed since it was read, or is not the `expected_sha256`.
    StaleFile,
    /// `APPROVAL_REQUIRED`: a person must approve (`details.grant`: the command that would).
    ApprovalRequired,
    /// `APPROVAL_DENIED`: the policy, a project deny rule or a person refused.
    ApprovalDenied,
    /// `PROGRAM_NOT_ALLOWED`: not a toolchain program nor one a person listed.
    ProgramNotAllowed,
    /// `TOOLCHAIN_NOT_FOUND`: the program was not found (`details.tried`, `details.fix`).
    ToolchainNotFound,
    /// `TIMEOUT`: a program overstayed its deadline and was stopped.
    Timeout,
    /// `LUA_ERROR`: the script raised an error (`file:line: message`).
    LuaError,
    /// `BUDGET_EXCEEDED`: a limit stopped the script or the recipe (`details.limit`).
    BudgetExceeded,
    /// `STEP_FAILED`: a recipe step failed (`details.failure`, `details.report`).
    StepFailed,
    /// `VERIFY_FAILED`: a step ran but its verify did not pass; a tool check failed.
    VerifyFailed,
    /// `NOT_READ`: this session must read the file before changing it.
    NotRead,
    /// `PACK_TAMPERED`: an installed pack's files no longer match rein.lock.
    PackTampered,
    /// `PACK_FETCH_FAILED`: git could not fetch a pack's repository (`details.stderr`).
    PackFetchFailed,
    /// A tool file that does not load or whose spec is invalid.
    ToolInvalid,
    /// The workspace, home or another setting cannot be used.
    InvalidConfig,
    /// The operating system refused an operation (permissions, disk full ...).
    IoError,
    /// The caller stopped the operation (cancellation, or a callback that failed).
    Cancelled,
    /// `DEVICE_BUSY`: another rein run holds the device (`details.holder`: pid, workspace, since).
    DeviceBusy,
    /// `HDC_SERVER_NOT_RUNNING`: no hdc server answers on its port, and rein never lets a
    /// program start one (`details.port`, `details.fix`).
    HdcServerNotRunning,
    /// `PROTECTED_CREATED`: a program made a `.git` where it may write; rein stopped it and
    /// removed what it made (`details.removed`).
    ProtectedCreated,
    /// `READ_ONLY_TOOL`: a tool that declares `read_only = true` (readOnlyHint) tried to write,
    /// edit, or run a program or device command that changes something (`details.tool`,
    /// `details.refused`).
    ReadOnlyTool,
    /// `NOT_DESTRUCTIVE_TOOL`: a tool that declares `destructive = false` tried to overwrite,
    /// edit or remove something, or run a command that replaces or removes (`details.tool`,
    /// `details.refused`).
    NotDestructiveTool,
    /// `MCP_ENTRY_EXISTS`: an MCP client's config file already names a server `rein` with
    /// another entry (`details.existing`, `details.entry`); nothing was written.
    McpEntryExists,
    /// `MCP_CONFIG_INVALID`: an MCP client's config file is not plain JSON or TOML of the
    /// client's form, or not a plain file (`details.why`); nothing was written.
    McpConfigInvalid,
    /// `KEPT_NOT_FOUND`: no kept program has that id (`details.id`; `rein ps` lists them).
    KeptNotFound,
    /// `KEEP_IMPOSSIBLE`: a kept program cannot be started so that it outlives rein here
    /// (Windows: rein runs inside a Job Object that forbids breakaway; `details.why`).
    KeepImpossible,
    /// A code a tool raised for itself (`rein.error("BUILD_FAILED", ...)`).
    Tool(String),
}

impl Code {
    /// Every code rein itself produces.
    pub const STABLE: [Code; 36] = [
        Code::InvalidArgs,
        Code::ToolNotFound,
        Code::FileNotFound,
        Code::NotAFile,
        Code::BinaryFile,
        Code::TooLarge,
        Code::EmptyOldString,
        Code::NoChange,
        Code::OldStringNotFound,
        Code::OldStringNotUnique,
        Code::StaleFile,
        Code::ApprovalRequired,
        Code::ApprovalDenied,
        Code::ProgramNotAllowed,
        Code::ToolchainNotFound,
        Code::Timeout,
        Code::LuaError,
        Code::BudgetExceeded,
        Code::StepFailed,
        Code::VerifyFailed,
        Code::NotRead,
        Code::PackTampered,
        Code::PackFetchFailed,
        Code::ToolInvalid,
        Code::InvalidConfig,
        Code::IoError,
        Code::Cancelled,
        Code::DeviceBusy,
        Code::HdcServerNotRunning,
        Code::ProtectedCreated,
        Code::ReadOnlyTool,
        Code::NotDestructiveTool,
        Code::McpEntryExists,
        Code::McpConfigInvalid,
        Code::KeptNotFound,
        Code::KeepImpossible,
    ];

    /// The code's text, as JSON output and the journal carry it: `"OLD_STRING_NOT_UNIQUE"`.
    pub fn as_str(&self) -> &str {
        match self {
            Code::InvalidArgs => "INVALID_ARGS",
            Code::ToolNotFound => "TOOL_NOT_FOUND",
            Code::FileNotFound => "FILE_NOT_FOUND",
            Code::NotAFile => "NOT_A_FILE",
            Code::BinaryFile => "BINARY_FILE",
            Code::TooLarge => "TOO_LARGE",
            Code::EmptyOldString => "EMPTY_OLD_STRING",
            Code::NoChange => "NO_CHANGE",
            Code::OldStringNotFound => "OLD_STRING_NOT_FOUND",
            Code::OldStringNotUnique => "OLD_STRING_NOT_UNIQUE",
            Code::StaleFile => "STALE_FILE",
            Code::ApprovalRequired => "APPROVAL_REQUIRED",
            Code::ApprovalDenied => "APPROVAL_DENIED",
            Code::ProgramNotAllowed => "PROGRAM_NOT_ALLOWED",
            Code::ToolchainNotFound => "TOOLCHAIN_NOT_FOUND",
            Code::Timeout => "TIMEOUT",
            Code::LuaError => "LUA_ERROR",
            Code::BudgetExceeded => "BUDGET_EXCEEDED",
            Code::StepFailed => "STEP_FAILED",
            Code::VerifyFailed => "VERIFY_FAILED",
            Code::NotRead => "NOT_READ",
            Code::PackTampered => "PACK_TAMPERED",
            Code::PackFetchFailed => "PACK_FETCH_FAILED",
            Code::ToolInvalid => "TOOL_INVALID",
            Code::InvalidConfig => "INVALID_CONFIG",
            Code::IoError => "IO_ERROR",
            Code::Cancelled => "CANCELLED",
            Code::DeviceBusy => "DEVICE_BUSY",
            Code::HdcServerNotRunning => "HDC_SERVER_NOT_RUNNING",
            Code::ProtectedCreated => "PROTECTED_CREATED",
            Code::ReadOnlyTool => "READ_ONLY_TOOL",
            Code::NotDestructiveTool => "NOT_DESTRUCTIVE_TOOL",
            Code::McpEntryExists => "MCP_ENTRY_EXISTS",
            Code::McpConfigInvalid => "MCP_CONFIG_INVALID",
            Code::KeptNotFound => "KEPT_NOT_FOUND",
            Code::KeepImpossible => "KEEP_IMPOSSIBLE",
            Code::Tool(code) => code,
        }
    }

    /// The stable code with this text, or a tool's own code.
    ///
    /// ```
    /// use rein::Code;
    /// assert_eq!(Code::parse("STALE_FILE"), Code::StaleFile);
    /// assert_eq!(Code::parse("BUILD_FAILED"), Code::Tool("BUILD_FAILED".into()));
    /// assert_eq!(Code::StaleFile.to_string(), "STALE_FILE");
    /// ```
    pub fn parse(text: &str) -> Code {
        Code::STABLE.into_iter().find(|code| code.as_str() == text).unwrap_or_else(|| Code::Tool(text.to_string()))
    }

    /// Usage and configuration problems exit with 2; everything else a tool reports exits with 1.
    pub fn is_usage_error(&self) -> bool {
        matches!(
            self,
            Code::InvalidArgs
                | Code::ToolNotFound
                | Code::ToolInvalid
                | Code::InvalidConfig
                | Code::McpEntryExists
                | Code::McpConfigInvalid
        )
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Code, D::Error> {
        let text = String::deserialize(deserializer)?;
        Ok(Code::parse(&text))
    }
}

/// A failure as callers see it (`{"code","message","details"}` in JSON).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    /// What went wrong, for programs: match on it.
    pub code: Code,
    /// What went wrong and what to do next, for people.
    pub message: String,
    /// What a caller can act on (candidates, locations, the command that would allow it …);
    /// `null` when there is nothing more.
    #[serde(skip_serializing_if = "Value::is_null")]
    pub details: Value,
}

impl Failure {
    /// A failure with no details.
    pub fn new(code: Code, message: impl Into<String>) -> Failure {
        Failure { code, message: message.into(), details: Value::Null }
    }

    /// The same failure, with `details`.
    pub fn with_details(mut self, details: Value) -> Failure {
        self.details = details;
        self
    }

    /// Whether the caller used rein wrongly (see [`Code::is_usage_error`]).
    pub fn is_usage_error(&self) -> bool {
        self.code.is_usage_error()
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Failure {}

/// The names among `known` closest to a mistyped `name` (at most three, closest first), for
/// messages that lead somewhere: a few edits away, or containing it (`edit` → `edit_file`).
pub fn closest_names<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let wanted = name.to_lowercase();
    let near = (wanted.chars().count() / 3).max(1);
    let mut ranked: Vec<(usize, &str)> = known
        .into_iter()
        .filter_map(|candidate| {
            let lower = candidate.to_lowercase();
            let distance = strsim::damerau_levenshtein(&wanted, &lower);
            // A start typed with a slip (`reed` for `read_file`) counts as near too.
            let start: String = lower.chars().take(wanted.chars().count()).collect();
            let start_distance = strsim::damerau_levenshtein(&wanted, &start);
            let contains = wanted.len() >= 3 && lower.contains(wanted.as_str());
            let near_enough = distance <= near || (wanted.len() >= 3 && start_distance <= near) || contains;
            near_enough.then_some((distance, candidate))
        })
        .collect();
    ranked.sort();
    ranked.into_iter().take(3).map(|(_, name)| name.to_string()).collect()
}

/// ` Did you mean a or b?` for a message, or nothing.
pub fn did_you_mean(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => format!(" Did you mean {one}?"),
        [first @ .., last] => format!(" Did you mean {} or {last}?", first.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips_through_its_text() {
        for code in Code::STABLE {
            assert_eq!(Code::parse(code.as_str()), code);
            let json = serde_json::to_value(&code).unwrap();
            assert_eq!(serde_json::from_value::<Code>(json).unwrap(), code);
        }
        assert_eq!(Code::parse("BUILD_FAILED"), Code::Tool("BUILD_FAILED".into()));
        assert_eq!(serde_json::to_value(Code::Tool("BUILD_FAILED".into())).unwrap(), "BUILD_FAILED");
    }

    #[test]
    fn closest_names_lead_to_what_was_meant() {
        let known = ["edit_file", "multi_edit", "read_file", "write_file", "list_dir"];
        assert_eq!(closest_names("edit_fiel", known), ["edit_file"]);
        assert_eq!(closest_names("edit", known), ["edit_file", "multi_edit"]);
        assert_eq!(closest_names("reed_file", known), ["read_file"]);
        assert_eq!(closest_names("reed", known), ["read_file"]);
        assert!(closest_names("deploy", known).is_empty());
        assert_eq!(did_you_mean(&["a".into(), "b".into(), "c".into()]), " Did you mean a, b or c?");
    }
}
