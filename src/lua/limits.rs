//! Per-call limits for Lua code: an instruction budget, a wall-clock deadline and a memory
//! ceiling. The state's meter (`lua::meter`, which also has the functions natives charge with) counts against them: a count hook on every
//! thread (so coroutines and async calls are covered too), and what work in C costs, since
//! the hook never runs inside C.
//!
//! The same checks stop a call whose caller cancelled it (an MCP `notifications/cancelled`):
//! a script spinning in the VM within [`HOOK_EVERY`] instructions of the cancel, the pattern
//! engine within its check interval (16,384 matching steps), a library function at its next
//! charge (each block it allocates, or before it loops). the book's "Limits" (docs/src/lua-api.md) has the table of what
//! bounds each library function.

use std::time::Duration;

/// How often the hook runs. Small enough to stop a loop (or a cancelled call) promptly, large
/// enough to cost little.
pub const HOOK_EVERY: u32 = 1000;

/// The limits of each tool call's Lua (a recipe step gets what its timeout or the recipe's
/// budget leaves of `wall_time`). A call that passes one fails with `BUDGET_EXCEEDED`.
///
/// ```
/// let limits = rein::Limits { instructions: 10_000_000, ..rein::Limits::default() };
/// assert_eq!(limits.tool_depth, rein::Limits::default().tool_depth);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Lua instructions per call (counted in steps of 1000, coroutines included).
    pub instructions: u64,
    /// The Lua state's memory, in bytes.
    pub memory_bytes: usize,
    /// How long one call may run, by the wall clock.
    pub wall_time: Duration,
    /// How deep `rein.tool` calls may nest.
    pub tool_depth: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            instructions: 2_000_000_000,
            memory_bytes: 64 * 1024 * 1024,
            // A plain tool call; a recipe step gets what its timeout or the recipe's budget
            // leaves (see recipe::engine).
            wall_time: Duration::from_secs(10 * 60),
            tool_depth: 8,
        }
    }
}

/// What loading one tool or recipe file may spend, whatever a call may: its top-level code only
/// declares the tool (requiring modules, building tables), which takes thousands of
/// instructions, so a file that loops there is broken — and every rein command that loads the
/// tools would otherwise wait out a whole call's budget for each such file.
pub const LOAD_INSTRUCTIONS: u64 = 10_000_000;
/// The wall clock of loading one file (a recipe file may call a tool while it loads).
pub const LOAD_WALL_TIME: Duration = Duration::from_secs(5);

impl Limits {
    /// These limits, bounded to what loading one file may spend.
    pub fn for_loading(self) -> Limits {
        Limits {
            instructions: self.instructions.min(LOAD_INSTRUCTIONS),
            wall_time: self.wall_time.min(LOAD_WALL_TIME),
            ..self
        }
    }
}

/// Which limit stopped a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breach {
    Instructions(u64),
    Memory(usize),
    WallTime(Duration),
    StackDepth,
    ToolDepth(usize),
    /// Not a limit: whoever started the call cancelled it.
    Cancelled,
}

impl Breach {
    pub fn limit_name(self) -> &'static str {
        match self {
            Breach::Instructions(_) => "instructions",
            Breach::Memory(_) => "memory",
            Breach::WallTime(_) => "wall_time",
            Breach::StackDepth => "stack_depth",
            Breach::ToolDepth(_) => "tool_depth",
            Breach::Cancelled => "cancelled",
        }
    }

    pub fn message(self) -> String {
        match self {
            Breach::Instructions(n) => {
                format!("the script ran past its budget of {n} Lua instructions (an endless loop?)")
            }
            Breach::Memory(n) => format!("the script used more than its {} MiB of memory", n / (1024 * 1024)),
            Breach::WallTime(d) => format!("the script ran longer than its {} s wall-clock limit", d.as_secs_f64()),
            Breach::StackDepth => "the script recursed too deeply (Lua stack overflow)".to_string(),
            Breach::ToolDepth(n) => format!("tools called tools more than {n} levels deep (a tool calling itself?)"),
            Breach::Cancelled => "the call was cancelled by its caller while the script ran".to_string(),
        }
    }
}

impl std::fmt::Display for Breach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for Breach {}
