//! The Lua states of one generation, each on a thread of its own, so calls run side by side
//! (a recipe waiting on a build holds one state; a `read_file` runs on another) and a state
//! stuck in C costs only itself. A call leases a state, waiting while all of them are busy,
//! runs its Lua there and gives the state back. One call at a time per state is the type: a
//! [`Runtime`] is reached only as `&mut` by the thread that owns it, for the job of the one
//! [`Lease`] that sent it.
//!
//! States are built as calls need them. While no more calls run than the machine has cores, a
//! call that finds no free state has one built at once; past that, another state would only
//! add its building (milliseconds of CPU) for calls that end in microseconds, so a call first
//! waits [`SPARE_AFTER`] for a state to come back, and one is built for it only if none does
//! (the others are held by calls that wait: a recipe's build, a sleep, a person's answer).
//!
//! - `worker`: one state's thread, building the state and running the jobs sent to it
//! - `watchdog`: gives up a state whose Lua does not come back within its wall clock plus a
//!   grace, or soon after a cancel; its call is answered and the next lease builds a new one
//! - `clock`: what a call waits [`SPARE_AFTER`] by, whatever executor polls the lease

mod clock;
mod watchdog;
mod worker;

use std::any::Any;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures::future::LocalBoxFuture;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use crate::error::{Code, Failure};
use crate::lua::meter::Meter;
use crate::lua::Runtime;
use worker::{Busy, Worker};

#[cfg(feature = "mcp")]
pub(crate) use worker::on_state_thread;

/// Builds one state of a pool, with the meter the watchdog watches it by.
pub type Build = Arc<dyn Fn(Arc<Meter>) -> Result<Runtime, Failure> + Send + Sync>;

/// What a job hands back, before the lease gives it its type again.
type Answer = Result<Box<dyn Any + Send>, Failure>;

/// The states of one generation (at most `size`, built as calls need them).
pub struct Pool {
    shared: Arc<Shared>,
}

/// How long a call waits for a busy state to come back before one is built for it, once more
/// calls run than the machine has cores.
pub const SPARE_AFTER: Duration = Duration::from_millis(20);

pub(crate) struct Shared {
    build: Build,
    idle: Mutex<Vec<Worker>>,
    /// A state was given back.
    returned: Notify,
    permits: Arc<Semaphore>,
    size: usize,
    /// Up to this many calls running, a call that finds no free state has one built at once.
    at_once: usize,
}

impl Pool {
    /// A pool of at most `size` states (at least one) that `build` makes; the first is built
    /// now, so a pool that cannot build one is an error.
    pub fn start(size: usize, build: Build) -> Result<Pool, Failure> {
        let first = start(build.clone()).wait()?;
        let size = size.max(1);
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let shared = Shared {
            build,
            idle: Mutex::new(vec![first]),
            returned: Notify::new(),
            permits: Arc::new(Semaphore::new(size)),
            size,
            at_once: cores.min(size),
        };
        Ok(Pool { shared: Arc::new(shared) })
    }

    /// A state for one call, waiting while all are busy; CANCELLED if `cancel` fires first.
    pub async fn lease(&self, cancel: Option<&CancellationToken>) -> Result<Lease, Failure> {
        let acquire = self.shared.permits.clone().acquire_owned();
        let permit = match cancel {
            None => acquire.await,
            Some(token) => tokio::select! {
                biased;
                () = token.cancelled() => return Err(cancelled_waiting()),
                permit = acquire => permit,
            },
        }
        .map_err(|_| stopped())?;
        let worker = match self.free_state(cancel).await? {
            Some(worker) => worker,
            None => start(self.shared.build.clone()).ready().await?,
        };
        Ok(Lease { worker: Some(worker), permit: Some(permit), pool: Arc::downgrade(&self.shared) })
    }

    /// A state free now or, once more calls run than `at_once`, given back within
    /// [`SPARE_AFTER`]; `None`: build one.
    async fn free_state(&self, cancel: Option<&CancellationToken>) -> Result<Option<Worker>, Failure> {
        let shared = &self.shared;
        let running = shared.size - shared.permits.available_permits();
        if running <= shared.at_once {
            return Ok(shared.take_idle());
        }
        let Some(spare) = clock::sleep(SPARE_AFTER) else {
            return Ok(shared.take_idle());
        };
        tokio::pin!(spare);
        let never = CancellationToken::new();
        let cancelled = cancel.unwrap_or(&never).cancelled();
        tokio::pin!(cancelled);
        loop {
            let returned = shared.returned.notified();
            tokio::pin!(returned);
            // Waiting from before the look, so a state given back in between is not missed.
            returned.as_mut().enable();
            if let Some(worker) = shared.take_idle() {
                return Ok(Some(worker));
            }
            tokio::select! {
                biased;
                () = &mut cancelled => return Err(cancelled_waiting()),
                () = &mut spare => return Ok(None),
                () = returned => {}
            }
        }
    }
}

impl Shared {
    fn take_idle(&self) -> Option<Worker> {
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop()
    }

    fn give_back(&self, worker: Worker) {
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).push(worker);
        self.returned.notify_one();
    }
}

/// One state, lent for one call.
pub struct Lease {
    worker: Option<Worker>,
    permit: Option<OwnedSemaphorePermit>,
    pool: Weak<Shared>,
}

impl Lease {
    /// Runs `job` on the state, on its thread; what it returns, or why the state could not
    /// finish it (the watchdog gave it up: BUDGET_EXCEEDED or CANCELLED).
    pub async fn run<R, F>(mut self, job: F) -> Result<R, Failure>
    where
        R: Send + 'static,
        F: for<'r> FnOnce(&'r mut Runtime) -> LocalBoxFuture<'r, R> + Send + 'static,
    {
        let (worker, permit) = (self.worker.take().expect("unused"), self.permit.take().expect("unused"));
        let (reply, answer) = tokio::sync::oneshot::channel::<Answer>();
        let busy = Busy {
            reply: Box::new(move |answer| {
                let _ = reply.send(answer);
            }),
            permit: Some(permit),
            pool: Some(self.pool.clone()),
            cancel_seen: None,
        };
        let boxed: worker::Job = Box::new(move |runtime| {
            let work = job(runtime);
            Box::pin(async move { Box::new(work.await) as Box<dyn Any + Send> })
        });
        worker.send(busy, boxed)?;
        let answer = answer.await.map_err(|_| stopped())??;
        Ok(*answer.downcast::<R>().expect("a job answers with its own type"))
    }
}

impl Drop for Lease {
    /// A lease not used gives its state back.
    fn drop(&mut self) {
        if let (Some(worker), Some(pool)) = (self.worker.take(), self.pool.upgrade()) {
            pool.give_back(worker);
        }
    }
}

/// A worker building its state, watched by the watchdog from the start (a state that never
/// finishes building is given up too).
fn start(build: Build) -> worker::Starting {
    let starting = Worker::start(build);
    watchdog::watch(starting.state());
    starting
}

fn cancelled_waiting() -> Failure {
    Failure::new(Code::Cancelled, "the call was cancelled while it waited for a free Lua state; nothing ran")
}

fn stopped() -> Failure {
    Failure::new(
        Code::LuaError,
        "the Lua state serving this call stopped without an answer (its thread ended); the next call gets a fresh one",
    )
}
