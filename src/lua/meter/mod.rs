//! The meter of one Lua state: what the call in progress has spent, and whether it must stop.
//! Everything that works on a script's behalf counts here, in instructions' worth: the VM hook
//! (every [`HOOK_EVERY`] instructions), the allocator (each block of [`allocator::CHARGED_FROM`]
//! bytes or more, [`BYTES_PER_UNIT`] bytes an instruction), the library functions that loop in
//! C without allocating (`library`), the pattern engine and the natives. Each [`HOOK_EVERY`] units spent
//! also look at the clock and the call's cancel; once tripped, the meter stays tripped until
//! the call ends, so whatever the script does next meets the breach again.
//!
//! Only the thread running the state spends; the watchdog reads [`Meter::watch`] from another.
//!
//! - `hook`: the count hook on every thread, and the protected call coroutine bodies run in
//! - `allocator`: the engine's allocator, metered while a call runs
//! - `library`: the standard functions that would loop in C unseen, charged before they run

pub(crate) mod allocator;
pub(crate) mod hook;
pub(crate) mod library;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use mlua::Lua;
use tokio_util::sync::CancellationToken;

use crate::lua::limits::{Breach, Limits, HOOK_EVERY};

/// No call in progress: nothing is counted.
const IDLE: u64 = u64::MAX;

/// Bytes that C builds or scans per instruction's worth: copying or scanning a few bytes costs
/// about what the VM spends on one instruction.
pub const BYTES_PER_UNIT: u64 = 8;

/// The units `bytes` built or scanned in C cost.
pub fn for_bytes(bytes: u64) -> u64 {
    bytes.div_ceil(BYTES_PER_UNIT)
}

#[derive(Debug, Default)]
pub struct Meter {
    /// Instructions' worth spent by the call in progress.
    used: AtomicU64,
    /// When `used` reaches this, look at the limit, the clock and the cancel ([`IDLE`]: never).
    next_check: AtomicU64,
    /// Set once the call is stopped (read on every spend, so a tripped call stops at once).
    tripped: AtomicBool,
    /// How many calls began (tells the watchdog one call from the next).
    calls: AtomicU64,
    call: Mutex<Option<Budget>>,
}

/// The limits of the call in progress and what stopped it.
#[derive(Debug)]
struct Budget {
    limits: Limits,
    deadline: Instant,
    cancel: Option<CancellationToken>,
    breach: Option<Breach>,
}

/// What the watchdog needs to know of the call in progress.
#[derive(Debug, Clone, Copy)]
pub struct Watch {
    /// Which call it is (each begin counts one more).
    pub call: u64,
    /// When its wall clock runs out.
    pub deadline: Instant,
    /// Its wall-clock limit.
    pub wall_time: std::time::Duration,
    /// Whether its caller cancelled it.
    pub cancelled: bool,
}

impl Meter {
    pub fn new() -> Meter {
        Meter { next_check: AtomicU64::new(IDLE), ..Meter::default() }
    }

    /// Starts a call with a fresh budget of `limits`, which `cancel` also stops.
    pub fn begin(&self, limits: Limits, cancel: Option<CancellationToken>) {
        let budget = Budget { limits, deadline: Instant::now() + limits.wall_time, cancel, breach: None };
        *self.lock() = Some(budget);
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.tripped.store(false, Ordering::Relaxed);
        self.used.store(0, Ordering::Relaxed);
        self.next_check.store(0, Ordering::Relaxed);
    }

    /// Ends the call: what stopped it, if something did.
    pub fn end(&self) -> Option<Breach> {
        self.next_check.store(IDLE, Ordering::Relaxed);
        self.tripped.store(false, Ordering::Relaxed);
        self.lock().take().and_then(|budget| budget.breach)
    }

    /// Counts `units` instructions' worth of work; the breach once the call must stop.
    pub fn spend(&self, units: u64) -> Option<Breach> {
        if self.tripped.load(Ordering::Relaxed) {
            return self.tripped();
        }
        // One thread spends (the one running the state): a load and a store suffice.
        let used = self.used.load(Ordering::Relaxed).saturating_add(units);
        self.used.store(used, Ordering::Relaxed);
        if used < self.next_check.load(Ordering::Relaxed) {
            return None;
        }
        self.look(used)
    }

    /// Looks at the clock and the cancel now (a script woke from waiting).
    pub fn check(&self) -> Option<Breach> {
        if self.next_check.load(Ordering::Relaxed) == IDLE {
            return None;
        }
        self.look(self.used.load(Ordering::Relaxed))
    }

    fn look(&self, used: u64) -> Option<Breach> {
        let mut guard = self.lock();
        let budget = guard.as_mut()?;
        if budget.breach.is_none() {
            if budget.cancel.as_ref().is_some_and(CancellationToken::is_cancelled) {
                budget.breach = Some(Breach::Cancelled);
            } else if used > budget.limits.instructions {
                budget.breach = Some(Breach::Instructions(budget.limits.instructions));
            } else if Instant::now() > budget.deadline {
                budget.breach = Some(Breach::WallTime(budget.limits.wall_time));
            }
        }
        if budget.breach.is_some() {
            self.tripped.store(true, Ordering::Relaxed);
        } else {
            let next = used.saturating_add(u64::from(HOOK_EVERY)).min(budget.limits.instructions.saturating_add(1));
            self.next_check.store(next, Ordering::Relaxed);
        }
        budget.breach
    }

    /// Records `breach` unless another came first; the one that stands.
    pub fn trip(&self, breach: Breach) -> Breach {
        let mut guard = self.lock();
        let Some(budget) = guard.as_mut() else { return breach };
        self.tripped.store(true, Ordering::Relaxed);
        *budget.breach.get_or_insert(breach)
    }

    /// What stopped the call in progress, if something did.
    pub fn tripped(&self) -> Option<Breach> {
        self.lock().as_ref().and_then(|budget| budget.breach)
    }

    /// The limits of the call in progress, if one is.
    pub fn limits(&self) -> Option<Limits> {
        self.lock().as_ref().map(|budget| budget.limits)
    }

    /// The call in progress as the watchdog sees it (read from another thread).
    pub fn watch(&self) -> Option<Watch> {
        self.lock().as_ref().map(|budget| Watch {
            call: self.calls.load(Ordering::Relaxed),
            deadline: budget.deadline,
            wall_time: budget.limits.wall_time,
            cancelled: budget.cancel.as_ref().is_some_and(CancellationToken::is_cancelled),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Budget>> {
        // Nothing panics while the budget is held; a poisoned lock still holds a valid budget.
        self.call.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The meter of the state `lua` is (set when the runtime is built).
fn meter(lua: &Lua) -> Option<mlua::AppDataRef<'_, Arc<Meter>>> {
    lua.app_data_ref::<Arc<Meter>>()
}

/// Charges work done in C or Rust on the script's behalf against the instruction budget;
/// the breach once the call must stop.
pub fn charge(lua: &Lua, units: u64) -> Option<Breach> {
    meter(lua).and_then(|meter| meter.spend(units))
}

/// Looks at the clock and the cancel now: whenever the script wakes from waiting
/// (`rein.sleep`, `rein.parallel`, a program, another tool).
pub fn check(lua: &Lua) -> Option<Breach> {
    meter(lua).and_then(|meter| meter.check())
}

/// The memory ceiling of the call in progress, if one is: for what natives build in Rust,
/// out of the engine's allocator.
pub fn memory_ceiling(lua: &Lua) -> Option<usize> {
    meter(lua).and_then(|meter| meter.limits()).map(|limits| limits.memory_bytes)
}

pub fn trip(lua: &Lua, breach: Breach) -> Breach {
    match meter(lua) {
        Some(meter) => meter.trip(breach),
        None => breach,
    }
}

pub fn tripped(lua: &Lua) -> Option<Breach> {
    meter(lua).and_then(|meter| meter.tripped())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn limits(instructions: u64) -> Limits {
        Limits { instructions, wall_time: Duration::from_secs(60), ..Limits::default() }
    }

    #[test]
    fn nothing_is_counted_outside_a_call() {
        let meter = Meter::new();
        assert_eq!(meter.spend(u64::MAX), None);
        assert_eq!(meter.check(), None);
        assert!(meter.watch().is_none());
    }

    #[test]
    fn the_limit_trips_at_the_unit_that_passes_it_and_stays_tripped() {
        let meter = Meter::new();
        meter.begin(limits(5000), None);
        assert_eq!(meter.spend(5000), None);
        assert_eq!(meter.spend(1), Some(Breach::Instructions(5000)));
        assert_eq!(meter.spend(0), Some(Breach::Instructions(5000)));
        assert_eq!(meter.end(), Some(Breach::Instructions(5000)));
        meter.begin(limits(5000), None);
        assert_eq!(meter.spend(10), None, "a new call starts afresh");
    }

    #[test]
    fn a_cancel_is_seen_within_one_hook_interval() {
        let meter = Meter::new();
        let token = CancellationToken::new();
        meter.begin(limits(u64::MAX), Some(token.clone()));
        assert_eq!(meter.spend(1), None);
        token.cancel();
        let mut spent = 0;
        while meter.spend(1).is_none() {
            spent += 1;
            assert!(spent <= HOOK_EVERY, "the cancel went unseen for {spent} units");
        }
        assert_eq!(meter.check(), Some(Breach::Cancelled));
        assert_eq!(meter.trip(Breach::WallTime(Duration::ZERO)), Breach::Cancelled, "the first breach stands");
    }

    #[test]
    fn the_clock_is_checked_when_asked_and_every_hook_interval() {
        let meter = Meter::new();
        meter.begin(Limits { wall_time: Duration::ZERO, ..limits(u64::MAX) }, None);
        std::thread::sleep(Duration::from_millis(2));
        assert_eq!(meter.check(), Some(Breach::WallTime(Duration::ZERO)));
    }
}
