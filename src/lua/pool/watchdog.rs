//! The last line: a thread that looks at every busy Lua state ten times a second. A state
//! whose call's Lua has not come back to the budget hook within its wall clock plus
//! [`WALL_CLOCK_GRACE`], or within [`CANCEL_GRACE`] of its caller cancelling it, is stuck
//! somewhere no check reaches (an embedder's native function that never returns, a library
//! function rein failed to meter): its call ends with BUDGET_EXCEEDED or CANCELLED, and the
//! pool builds a fresh state in its place. Waiting Lua (a program, a sleep) is not stuck: the
//! runtime stops such a call itself at its deadline or its cancel, well before the watchdog.

use std::sync::{Arc, Mutex, Once, Weak};
use std::time::{Duration, Instant};

use serde_json::json;

use super::worker::{Busy, State};
use crate::error::{Code, Failure};
use crate::lua::meter::{Meter, Watch};

/// How far past its wall clock a call's Lua may be before its state is given up.
pub const WALL_CLOCK_GRACE: Duration = Duration::from_secs(1);
/// How long after its cancel is first seen a call's Lua may go on; with the watchdog's period
/// a cancel ends any call within a second.
pub const CANCEL_GRACE: Duration = Duration::from_millis(800);
const PERIOD: Duration = Duration::from_millis(100);

/// Every worker not yet dropped.
static WATCHED: Mutex<Vec<Weak<State>>> = Mutex::new(Vec::new());

/// Watches `worker` from now on (until it is dropped).
pub(super) fn watch(worker: &Arc<State>) {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        if let Err(e) = std::thread::Builder::new().name("rein-watchdog".to_string()).spawn(run) {
            tracing::warn!("no watchdog for Lua states (cannot start its thread: {e}): a state stuck in a native function will hold its calls");
        }
    });
    watched().push(Arc::downgrade(worker));
}

fn watched() -> std::sync::MutexGuard<'static, Vec<Weak<State>>> {
    WATCHED.lock().unwrap_or_else(|e| e.into_inner())
}

fn run() {
    loop {
        std::thread::sleep(PERIOD);
        let workers: Vec<Arc<State>> = {
            let mut list = watched();
            list.retain(|worker| worker.strong_count() > 0);
            list.iter().filter_map(Weak::upgrade).collect()
        };
        for worker in workers {
            worker.give_up_if(stuck);
        }
    }
}

/// Why the call `busy` runs must end now, if it must.
fn stuck(meter: &Meter, busy: &mut Busy) -> Option<Failure> {
    let watch = meter.watch()?;
    let now = Instant::now();
    if now > watch.deadline + WALL_CLOCK_GRACE {
        return Some(past_its_clock(&watch));
    }
    if !watch.cancelled {
        return None;
    }
    match busy.cancel_seen {
        Some((call, since)) if call == watch.call => (now.duration_since(since) >= CANCEL_GRACE).then(not_stopping),
        _ => {
            busy.cancel_seen = Some((watch.call, now));
            None
        }
    }
}

fn past_its_clock(watch: &Watch) -> Failure {
    let message = format!(
        "the script did not come back from a library or native function within its {} s wall-clock limit and a {} s grace, so rein gave up its Lua state (a fresh one serves the next call). Make the script do less per call; if a native module never returns, fix the module",
        watch.wall_time.as_secs_f64(),
        WALL_CLOCK_GRACE.as_secs()
    );
    tracing::warn!("{message}");
    Failure::new(Code::BudgetExceeded, message).with_details(json!({"limit": "wall_time", "state_given_up": true}))
}

fn not_stopping() -> Failure {
    let message = "the call was cancelled and its script did not stop within a second (it was inside a library or native function), so rein gave up its Lua state (a fresh one serves the next call)";
    tracing::warn!("{message}");
    Failure::new(Code::Cancelled, message).with_details(json!({"state_given_up": true}))
}

// The promise: a cancel ends any call within a second, counting the watchdog's period.
const _: () = assert!(CANCEL_GRACE.as_millis() + PERIOD.as_millis() <= 1000);
