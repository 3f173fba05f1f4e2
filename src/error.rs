//! The structured failure every layer reports: a stable machine code, a message that says
//! what to do next, and details a caller can act on.

use serde::Serialize;
use serde_json::Value;

/// Stable error codes (shared/DESIGN.md). Codes are only ever added, never renamed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    InvalidArgs,
    ToolNotFound,
    FileNotFound,
    NotAFile,
    BinaryFile,
    TooLarge,
    EmptyOldString,
    NoChange,
    OldStringNotFound,
    OldStringNotUnique,
    StaleFile,
    PathOutsideWorkspace,
    ApprovalRequired,
    ApprovalDenied,
    ProgramNotAllowed,
    ToolchainNotFound,
    Timeout,
    LuaError,
    BudgetExceeded,
    StepFailed,
    VerifyFailed,
    NotRead,
    PackTampered,
    /// A tool file that does not load or whose spec is invalid.
    ToolInvalid,
    /// The workspace, home or another setting cannot be used.
    InvalidConfig,
    /// The operating system refused an operation (permissions, disk full ...).
    IoError,
    /// The caller stopped the operation (cancellation, or a callback that failed).
    Cancelled,
}

impl Code {
    pub const ALL: [Code; 27] = [
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
        Code::PathOutsideWorkspace,
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
        Code::ToolInvalid,
        Code::InvalidConfig,
        Code::IoError,
        Code::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
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
            Code::PathOutsideWorkspace => "PATH_OUTSIDE_WORKSPACE",
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
            Code::ToolInvalid => "TOOL_INVALID",
            Code::InvalidConfig => "INVALID_CONFIG",
            Code::IoError => "IO_ERROR",
            Code::Cancelled => "CANCELLED",
        }
    }

    pub fn parse(text: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|code| code.as_str() == text)
    }

    /// Usage and configuration problems exit with 2; everything else a tool reports exits with 1.
    pub fn is_usage_error(self) -> bool {
        matches!(self, Code::InvalidArgs | Code::ToolNotFound | Code::ToolInvalid | Code::InvalidConfig)
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failure as callers see it (`{"code","message","details"}` in JSON). The code is a string
/// because scripts may raise codes of their own next to the stable ones in [`Code`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    pub code: String,
    pub message: String,
    #[serde(skip_serializing_if = "Value::is_null")]
    pub details: Value,
}

impl Failure {
    pub fn new(code: Code, message: impl Into<String>) -> Failure {
        Failure { code: code.as_str().to_string(), message: message.into(), details: Value::Null }
    }

    pub fn with_details(mut self, details: Value) -> Failure {
        self.details = details;
        self
    }

    /// The stable code, when the failure carries one of ours.
    pub fn known_code(&self) -> Option<Code> {
        Code::parse(&self.code)
    }

    pub fn is_usage_error(&self) -> bool {
        self.known_code().is_some_and(Code::is_usage_error)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Failure {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips_through_its_text() {
        for code in Code::ALL {
            assert_eq!(Code::parse(code.as_str()), Some(code));
        }
        assert_eq!(Code::parse("NOT_A_CODE"), None);
    }
}
