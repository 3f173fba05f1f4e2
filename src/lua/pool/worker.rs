//! One Lua state's thread. It builds the state, then runs the jobs its leases send, one after
//! the other, on a small async runtime of its own (the programs, sleeps and approvals a job
//! waits on are driven there). The state never leaves its thread: it is dropped there too,
//! when the pool lets go of the worker or the watchdog gives it up.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Instant;

use futures::future::LocalBoxFuture;
use futures::FutureExt;
use tokio::sync::{mpsc, oneshot, OwnedSemaphorePermit};

use super::{Answer, Build, Shared};
use crate::error::{Code, Failure};
use crate::kernel::platform::threads;
use crate::lua::meter::Meter;
use crate::lua::Runtime;

/// A call's Lua work, as the thread runs it.
pub(super) type Job = Box<dyn for<'r> FnOnce(&'r mut Runtime) -> LocalBoxFuture<'r, Box<dyn Any + Send>> + Send>;

/// What a busy worker owes: the answer to its job, and the lease's permit to give back.
pub(super) struct Busy {
    pub reply: Box<dyn FnOnce(Answer) + Send>,
    pub permit: Option<OwnedSemaphorePermit>,
    /// Where the worker goes back to when the job is done (none while it is being built).
    pub pool: Option<Weak<Shared>>,
    /// When the watchdog first saw the job's call cancelled: which call (the meter's count of
    /// calls), and when.
    pub cancel_seen: Option<(u64, Instant)>,
}

/// What the worker's thread, its handles and the watchdog share.
pub(super) struct State {
    pub meter: Arc<Meter>,
    busy: Mutex<Option<Busy>>,
    /// The OS's id of the thread (to lower it once given up).
    thread: AtomicU64,
}

/// A handle on a worker's thread: the way to send it jobs.
pub(crate) struct Worker {
    jobs: mpsc::UnboundedSender<Envelope>,
    state: Arc<State>,
}

/// A job, and the handle the worker goes back to the pool as once it is done.
struct Envelope {
    job: Job,
    worker: Worker,
}

/// A worker whose state is being built.
pub(super) struct Starting {
    worker: Worker,
    ready: oneshot::Receiver<Answer>,
}

impl Starting {
    /// What the watchdog watches.
    pub(super) fn state(&self) -> &Arc<State> {
        &self.worker.state
    }

    /// Blocks until the state is built.
    pub fn wait(self) -> Result<Worker, Failure> {
        futures::executor::block_on(self.ready())
    }

    pub async fn ready(self) -> Result<Worker, Failure> {
        self.ready.await.map_err(|_| thread_ended())??;
        Ok(self.worker)
    }
}

impl Worker {
    /// Starts a thread that builds a state with `build` (the pool has the watchdog watch it).
    pub(super) fn start(build: Build) -> Starting {
        let (reply, ready) = oneshot::channel();
        let building = Busy {
            reply: Box::new(move |answer| {
                let _ = reply.send(answer);
            }),
            permit: None,
            pool: None,
            cancel_seen: None,
        };
        let state = Arc::new(State {
            meter: Arc::new(Meter::new()),
            busy: Mutex::new(Some(building)),
            thread: AtomicU64::new(0),
        });
        let (jobs, inbox) = mpsc::unbounded_channel();
        let on_thread = state.clone();
        let spawned =
            std::thread::Builder::new().name("rein-lua".to_string()).spawn(move || serve(build, on_thread, inbox));
        if let Err(e) = spawned {
            state.answer(Err(Failure::new(Code::LuaError, format!("cannot start a thread for a Lua state: {e}"))));
        }
        Starting { worker: Worker { jobs, state }, ready }
    }

    /// Sends `job` to the thread; `busy` is what it owes until the job is done.
    pub(super) fn send(self, busy: Busy, job: Job) -> Result<(), Failure> {
        *self.state.lock() = Some(busy);
        let (jobs, state) = (self.jobs.clone(), self.state.clone());
        if jobs.send(Envelope { job, worker: self }).is_err() {
            state.take();
            return Err(thread_ended());
        }
        Ok(())
    }
}

impl State {
    fn lock(&self) -> MutexGuard<'_, Option<Busy>> {
        self.busy.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn take(&self) -> Option<Busy> {
        self.lock().take()
    }

    /// Answers what the worker owes, unless the watchdog gave it up first (false then).
    fn answer(&self, answer: Answer) -> bool {
        match self.take() {
            Some(busy) => {
                drop(busy.permit);
                (busy.reply)(answer);
                true
            }
            None => false,
        }
    }

    /// The job is done: the worker goes back to its pool, then its permit and its answer;
    /// false when the watchdog gave the worker up meanwhile.
    fn finish(&self, answer: Answer, worker: Worker) -> bool {
        let Some(busy) = self.take() else { return false };
        if let Some(pool) = busy.pool.as_ref().and_then(Weak::upgrade) {
            pool.give_back(worker);
        }
        drop(busy.permit);
        (busy.reply)(answer);
        true
    }

    /// Gives the worker up if `stuck` says its job must end, answering it with that failure:
    /// its thread is left to finish (or not) by itself at the lowest priority, and its permit
    /// lets the pool build another state.
    pub(super) fn give_up_if(&self, stuck: impl FnOnce(&Meter, &mut Busy) -> Option<Failure>) {
        let mut guard = self.lock();
        let Some(failure) = guard.as_mut().and_then(|busy| stuck(&self.meter, busy)) else { return };
        let busy = guard.take();
        drop(guard);
        threads::lower_priority(self.thread.load(Ordering::Relaxed));
        if let Some(busy) = busy {
            drop(busy.permit);
            (busy.reply)(Err(failure));
        }
    }
}

std::thread_local! {
    static STATE_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread is a Lua state's (where one call's work runs, and may wait for good).
#[cfg(feature = "mcp")]
pub(crate) fn on_state_thread() -> bool {
    STATE_THREAD.with(std::cell::Cell::get)
}

/// The thread: builds the state, answers the starter, then runs jobs until the pool lets go.
fn serve(build: Build, state: Arc<State>, mut inbox: mpsc::UnboundedReceiver<Envelope>) {
    STATE_THREAD.with(|flag| flag.set(true));
    state.thread.store(threads::current_id(), Ordering::Relaxed);
    let executor = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(executor) => executor,
        Err(e) => {
            state.answer(Err(Failure::new(Code::LuaError, format!("cannot start a Lua state's async runtime: {e}"))));
            return;
        }
    };
    let built = {
        let _inside = executor.enter();
        std::panic::catch_unwind(AssertUnwindSafe(|| build(state.meter.clone())))
    };
    let mut runtime = match built {
        Ok(Ok(runtime)) => runtime,
        Ok(Err(failure)) => {
            state.answer(Err(failure));
            return;
        }
        Err(_) => {
            state.answer(Err(panicked()));
            return;
        }
    };
    if !state.answer(Ok(Box::new(()))) {
        return;
    }
    executor.block_on(async {
        while let Some(Envelope { job, worker }) = inbox.recv().await {
            let done = match AssertUnwindSafe(job(&mut runtime)).catch_unwind().await {
                Ok(value) => state.finish(Ok(value), worker),
                Err(_) => {
                    state.answer(Err(panicked()));
                    false
                }
            };
            if !done {
                break;
            }
        }
    });
}

fn thread_ended() -> Failure {
    Failure::new(
        Code::LuaError,
        "the Lua state serving this call is gone (its thread ended); the next call gets a fresh one",
    )
}

fn panicked() -> Failure {
    Failure::new(
        Code::LuaError,
        "rein failed inside a Lua state (a panic; a bug to report); the next call gets a fresh state",
    )
}
