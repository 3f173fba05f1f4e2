//! One sandboxed Lua state: only table/string/math/utf8/coroutine plus the `rein` namespace,
//! per-call limits, and the tools loaded into it. Its calls take it mutably: one call at a time
//! (a pool of them, `lua::pool`, runs calls side by side).

use std::sync::Arc;

use mlua::{Function, Lua, LuaOptions, StdLib, Table, Value};

use crate::error::Failure;
use crate::kernel::call::CancellationToken;
use crate::kernel::{Call, Kernel};
use crate::lua::chunk::{Chunk, Modules};
use crate::lua::invoke::{self, internal};
use crate::lua::limits::{Breach, Limits};
use crate::lua::meter::allocator::MeteredAllocator;
use crate::lua::meter::{self, Meter};
use crate::lua::native::{self, NativeModules};
use crate::lua::require;
use crate::lua::state::{Helpers, HostData, ToolTable};
use crate::lua::{api, compiled, current_call, failure, pattern};

const BOOTSTRAP: &str = include_str!("bootstrap.lua");

pub struct Runtime {
    lua: Lua,
    /// What the call in progress spent; shared with the hook, the allocator and the metered
    /// library functions.
    meter: Arc<Meter>,
    /// Dropped after `lua` (fields drop in order), switched off before it closes.
    allocator: Box<MeteredAllocator>,
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.allocator.switch_off();
    }
}

impl Runtime {
    /// A state whose `rein` also holds the embedder's `natives` (`rein.<module>`), its calls
    /// counted by `meter`.
    pub fn new(
        kernel: Arc<Kernel>,
        modules: Arc<dyn Modules>,
        natives: &NativeModules,
        limits: Limits,
        meter: Arc<Meter>,
    ) -> Result<Runtime, Failure> {
        let libs = StdLib::TABLE | StdLib::STRING | StdLib::MATH | StdLib::UTF8 | StdLib::COROUTINE;
        let lua = Lua::new_with(libs, LuaOptions::new()).map_err(|e| internal("create the Lua state", e))?;
        lua.set_app_data(HostData { kernel, modules, limits });
        lua.set_app_data(ToolTable::default());
        lua.set_app_data(meter.clone());
        meter::hook::install(&lua, &meter).map_err(|e| internal("install the budget hook", e))?;
        meter::library::install(&lua, &meter).map_err(|e| internal("meter the library", e))?;
        let allocator = MeteredAllocator::new(&lua, meter.clone()).map_err(|e| internal("meter the allocator", e))?;
        let strings: Table = lua.globals().get("string").map_err(|e| internal("read the string table", e))?;
        pattern::install(&lua, &strings).map_err(|e| internal("install the pattern functions", e))?;
        let bootstrap_natives = api::bootstrap_natives(&lua).map_err(|e| internal("prepare the bootstrap", e))?;
        let helpers: Table = compiled::load(&lua, "<rein>/bootstrap.lua", BOOTSTRAP, None)
            .and_then(|bootstrap| bootstrap.call(bootstrap_natives))
            .map_err(|e| internal("run the bootstrap", e))?;
        let read = |name: &str| helpers.get::<Function>(name).map_err(|e| internal("read the bootstrap", e));
        let seal_globals = read("seal_globals")?;
        lua.set_app_data(Helpers { run: read("run")?, raising: read("raising")?, read_output: read("read_output")? });
        let rein = api::install(&lua).map_err(|e| internal("build the rein namespace", e))?;
        let raising = crate::lua::state::helpers(&lua).raising.clone();
        native::install::install(&lua, &rein, &raising, natives).map_err(|e| internal("add the native modules", e))?;
        let sealed: Table = seal_globals.call(()).map_err(|e| internal("make the globals read-only", e))?;
        lua.set_named_registry_value(require::GLOBALS, sealed).map_err(|e| internal("keep the globals", e))?;
        Ok(Runtime { lua, meter, allocator })
    }

    pub fn lua(&self) -> &Lua {
        &self.lua
    }

    pub fn limits(&self) -> Limits {
        crate::lua::state::limits(&self.lua)
    }

    /// Runs a declaration file (a tool or a recipe) within the load budget
    /// ([`Limits::for_loading`]), as `call` (which says whose file it is); returns what it
    /// returned.
    pub fn load_declaration(&mut self, call: Call, file: &Chunk) -> Result<Value, Failure> {
        let limits = self.limits().for_loading();
        self.begin(limits, call.cancel_token().cloned()).map_err(|e| internal("start the budget", e))?;
        let value =
            current_call::within_sync(call, || require::compile(&self.lua, file).and_then(|f| f.call::<Value>(())));
        let result = match self.meter.tripped() {
            Some(breach @ (Breach::Instructions(_) | Breach::WallTime(_))) => {
                let mut failure = failure::breach_failure(breach);
                failure.message = format!(
                    "loading the file: {breach}. A tool or recipe file's top-level code only declares it and may spend at most {} Lua instructions and {} s (the load budget, apart from a call's); move the work into its run function",
                    limits.instructions,
                    limits.wall_time.as_secs()
                );
                Err(failure)
            }
            Some(breach) => Err(failure::breach_failure(breach)),
            None => value.map_err(|err| failure::from_mlua_error(&self.lua, &err)),
        };
        self.end();
        result
    }

    pub fn set_tools(&mut self, tools: ToolTable) {
        self.lua.set_app_data(tools);
    }

    /// Calls tool `name` as part of `call`, with a fresh budget; the state is healthy
    /// afterwards whatever the script did.
    pub async fn call(
        &mut self,
        call: &Call,
        name: &str,
        args: &serde_json::Value,
    ) -> Result<serde_json::Value, Failure> {
        let cancel = call.cancel_token().cloned();
        self.budgeted_with(self.limits(), cancel, invoke::tool(&self.lua, call, name, args)).await
    }

    /// Calls a Lua function (a recipe step's `run` or `verify`) as part of `call`, with a
    /// fresh budget whose wall clock is `wall_time`; returns every value it returned.
    pub async fn call_function(
        &mut self,
        call: Call,
        function: &Function,
        args: impl mlua::IntoLuaMulti,
        wall_time: std::time::Duration,
    ) -> Result<Vec<serde_json::Value>, Failure> {
        let limits = Limits { wall_time, ..self.limits() };
        let cancel = call.cancel_token().cloned();
        self.budgeted_with(limits, cancel, invoke::function(&self.lua, call, function, args)).await
    }

    /// Runs `work` under a fresh budget of `limits`, which `cancel` (the call's) also stops. A
    /// script in the VM meets its deadline or cancel at its next check; one waiting (on a
    /// program, a sleep, another tool) is dropped at the deadline or the cancel, and the
    /// programs it started are killed with it.
    async fn budgeted_with<T>(
        &self,
        limits: Limits,
        cancel: Option<CancellationToken>,
        work: impl std::future::Future<Output = Result<T, Failure>>,
    ) -> Result<T, Failure> {
        if cancel.as_ref().is_some_and(CancellationToken::is_cancelled) {
            // Cancelled while it waited for its turn: it never starts.
            return Err(failure::breach_failure(Breach::Cancelled));
        }
        self.begin(limits, cancel.clone()).map_err(|e| internal("start the budget", e))?;
        let deadline = tokio::time::Instant::now() + limits.wall_time;
        let cancelled = async {
            match &cancel {
                Some(token) => token.cancelled().await,
                None => std::future::pending().await,
            }
        };
        let work = TripOnDrop { runtime: self, work: Some(Box::pin(work)) };
        let result = tokio::select! {
            result = work => result,
            () = cancelled => {
                self.meter.trip(Breach::Cancelled);
                Err(failure::breach_failure(Breach::Cancelled))
            }
            () = tokio::time::sleep_until(deadline) => {
                self.meter.trip(Breach::WallTime(limits.wall_time));
                Err(failure::breach_failure(Breach::WallTime(limits.wall_time)))
            }
        };
        match self.end() {
            Some(breach) => Err(failure::breach_failure(breach)),
            None => result,
        }
    }

    /// Starts a call's budget: its limits, its memory ceiling, the metered allocator.
    fn begin(&self, limits: Limits, cancel: Option<CancellationToken>) -> mlua::Result<()> {
        self.meter.begin(limits, cancel);
        self.lua.set_memory_limit(self.lua.used_memory().saturating_add(limits.memory_bytes))?;
        self.allocator.switch_on();
        Ok(())
    }

    /// Ends the call: returns the breach if one happened, and gives back memory a breach left.
    fn end(&self) -> Option<Breach> {
        self.allocator.switch_off();
        let breach = self.meter.end();
        let _ = self.lua.set_memory_limit(0);
        if breach.is_some() {
            let _ = self.lua.gc_collect();
            let _ = self.lua.gc_collect();
        }
        breach
    }
}

/// A call's work that, if dropped before it ends (its caller gave up on it: an embedder's
/// timeout, a cancel), trips the call's budget, drops the work and puts the state back, in
/// that order and before anything the caller holds is let go. Dropping the work closes the
/// script's coroutine, and Lua then runs its pending `__close` handlers: on a tripped budget
/// they stop at the hook's next check instead of running for what is left of a budget nobody
/// waits on. The state is put back here, while the call still holds its turn on the state: a
/// caller that cleared it after letting go could clear the budget of the next call, already
/// running on another thread.
struct TripOnDrop<'a, F: std::future::Future> {
    runtime: &'a Runtime,
    work: Option<std::pin::Pin<Box<F>>>,
}

impl<F: std::future::Future> std::future::Future for TripOnDrop<'_, F> {
    type Output = F::Output;

    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<F::Output> {
        let Some(work) = self.work.as_mut() else { return std::task::Poll::Pending };
        let polled = work.as_mut().poll(cx);
        if polled.is_ready() {
            self.work = None;
        }
        polled
    }
}

impl<F: std::future::Future> Drop for TripOnDrop<'_, F> {
    fn drop(&mut self) {
        if let Some(work) = self.work.take() {
            self.runtime.meter.trip(Breach::Cancelled);
            drop(work);
            self.runtime.end();
        }
    }
}
