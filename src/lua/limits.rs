//! Per-call limits for Lua code: an instruction budget and a wall-clock deadline checked by a
//! *global* hook (so coroutines and async calls are covered too), and a memory ceiling.
//!
//! The same checks stop a call whose caller cancelled it (an MCP `notifications/cancelled`):
//! a script spinning in the VM is stopped within [`HOOK_EVERY`] instructions of the cancel;
//! inside the pattern engine within its check interval (16,384 matching steps); both well under
//! a millisecond. `string.rep` and `table.concat` charge (and so check) for what they build. The slow
//! case is `..` (and `string.format`): one instruction that may copy up to the memory ceiling,
//! so a loop of them near the ceiling reaches the next check after a few hundred copies
//! (0.66–0.76 s measured at the 64 MiB default on a 2-core machine).

use std::time::{Duration, Instant};

use mlua::{HookTriggers, Lua, VmState};
use tokio_util::sync::CancellationToken;

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

/// The budget of the call in progress, kept in the state's app data.
#[derive(Debug)]
pub struct Budget {
    limits: Limits,
    deadline: Instant,
    used: u64,
    tripped: Option<Breach>,
    /// The call's cancel (`kernel::Call::cancel_token`), checked with the clock.
    cancel: Option<CancellationToken>,
}

impl Budget {
    pub fn new(limits: Limits, cancel: Option<CancellationToken>) -> Budget {
        Budget { limits, deadline: Instant::now() + limits.wall_time, used: 0, tripped: None, cancel }
    }

    /// Records the first breach; later ones do not overwrite it.
    pub fn trip(&mut self, breach: Breach) -> Breach {
        *self.tripped.get_or_insert(breach)
    }

    fn tick(&mut self) -> Option<Breach> {
        self.spend(u64::from(HOOK_EVERY))
    }

    /// Counts `units` instructions' worth of work (the hook's, or work done in C on the
    /// script's behalf) and checks the clock and the cancel.
    fn spend(&mut self, units: u64) -> Option<Breach> {
        if self.tripped.is_none() {
            self.used = self.used.saturating_add(units);
            if self.cancel.as_ref().is_some_and(CancellationToken::is_cancelled) {
                self.tripped = Some(Breach::Cancelled);
            } else if self.used > self.limits.instructions {
                self.tripped = Some(Breach::Instructions(self.limits.instructions));
            } else if Instant::now() > self.deadline {
                self.tripped = Some(Breach::WallTime(self.limits.wall_time));
            }
        }
        self.tripped
    }
}

/// Installs the hook once per state. Once a budget is tripped the hook raises on every run,
/// so a script that catches the error only meets it again.
pub fn install_hook(lua: &Lua) -> mlua::Result<()> {
    lua.set_global_hook(HookTriggers::new().every_nth_instruction(HOOK_EVERY), |lua, _debug| {
        let breach = lua.app_data_mut::<Budget>().and_then(|mut budget| budget.tick());
        match breach {
            Some(breach) => Err(mlua::Error::external(breach)),
            None => Ok(VmState::Continue),
        }
    })
}

/// Starts a fresh budget and memory ceiling for a top-level call, which `cancel` stops.
pub fn begin(lua: &Lua, limits: Limits, cancel: Option<CancellationToken>) -> mlua::Result<()> {
    lua.set_app_data(Budget::new(limits, cancel));
    lua.set_memory_limit(lua.used_memory().saturating_add(limits.memory_bytes))?;
    Ok(())
}

/// Ends the call: returns the breach if one happened, and gives back memory a breach left.
pub fn end(lua: &Lua) -> Option<Breach> {
    let breach = lua.remove_app_data::<Budget>().and_then(|b| b.tripped);
    let _ = lua.set_memory_limit(0);
    if breach.is_some() {
        let _ = lua.gc_collect();
        let _ = lua.gc_collect();
    }
    breach
}

/// Charges work a library function does in C (bytes it builds) against the instruction
/// budget, and checks the clock: the hook does not run inside C. Also called whenever the
/// script wakes from waiting (`rein.sleep`, `rein.parallel`, a program, another tool).
pub fn charge(lua: &Lua, units: u64) -> Option<Breach> {
    lua.app_data_mut::<Budget>().and_then(|mut budget| budget.spend(units))
}

/// The memory ceiling of the call in progress, if one is: for what natives build in Rust,
/// out of the engine's allocator.
pub fn memory_ceiling(lua: &Lua) -> Option<usize> {
    lua.app_data_ref::<Budget>().map(|budget| budget.limits.memory_bytes)
}

pub fn trip(lua: &Lua, breach: Breach) -> Breach {
    match lua.app_data_mut::<Budget>() {
        Some(mut budget) => budget.trip(breach),
        None => breach,
    }
}

pub fn tripped(lua: &Lua) -> Option<Breach> {
    lua.app_data_ref::<Budget>().and_then(|b| b.tripped)
}
