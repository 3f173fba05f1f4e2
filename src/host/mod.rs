//! The embeddable entry point: a workspace, a home, the kernel, and the Lua tools and recipes
//! being served.
//!
//! ```no_run
//! let host = rein::Host::builder().workspace("/path/to/app").build()?;
//! let result = host.call("read_file", serde_json::json!({"path": "AppScope/app.json5"}))?;
//! # Ok::<(), rein::Failure>(())
//! ```
//!
//! - `builder`: configuring a host (kernel from home and rein.toml, sources, limits)
//! - `generation`, `reload`, `watch`: what is served, and hot reload guarded by checks
//! - `sources`, `registry`: where Lua files come from, and which definition of a name wins;
//!   `declared_names`, `nested_calls`: what a file declares and whether it may call other
//!   tools, read from its text (a host serving one name loads only what it needs)
//! - `checks`: the examples tools declare, run in scratch workspaces
//! - `subscribers`: the host's subscribers to the event stream
//! - `config`, `doctor`: home and project settings; what toolchain was found
//! - `types`: editor stubs for tool and recipe authors (`rein types`)
//! - `mcp_clients`: rein's entry in an MCP client's project file (`rein mcp add`)

mod approval_rules;
mod builder;
mod changes;
pub mod checks;
mod code_reading;
pub mod config;
mod declared_names;
mod dependencies;
pub mod doctor;
mod file_key;
mod generation;
pub mod kept;
mod loading;
mod locate;
pub mod mcp_clients;
mod nested_calls;
mod packs;
pub mod policy_files;
mod policy_review;
pub mod project_files;
pub mod registry;
mod reload;
mod runs;
mod scan_cache;
pub mod sources;
mod subscribers;
pub mod types;
mod watch;

use std::path::Path;
use std::sync::Arc;

use futures::future::LocalBoxFuture;
use serde_json::{json, Value};

pub use approval_rules::ApprovalRules;
#[cfg(feature = "mcp")]
pub(crate) use builder::Prepared;
pub use builder::{default_home, HostBuilder};
pub use generation::Generation;
pub use packs::{PackApplied, PackChange, PackChangeKind, PackCheck, Packs};
pub use policy_review::{PolicyReview, ReviewedFile};
pub use reload::{KeptFile, ReloadOutcome, Serving};
pub use runs::Undone;
pub use subscribers::Subscription;
pub use watch::Watcher;

use crate::error::{Code, Failure};
use crate::kernel::call::CancellationToken;
use crate::kernel::{Call, Event, Kernel, Listener, ReadLedger};
use crate::lua::{Limits, Runtime};
use crate::recipe::spec::RecipeCodes;
use crate::recipe::{Engine, RecipeOptions, Report};
use registry::{LoadProblem, ToolInfo};
use sources::Sources;

/// A workspace served by rein: the kernel that owns every side effect, and the generation of
/// Lua tools and recipes being served (built-in, from packs, from the project). Build one with
/// [`Host::builder`]; call tools with [`Host::call`], run recipes with [`Host::run_recipe`].
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let workspace = tempfile::tempdir()?;
/// std::fs::write(workspace.path().join("notes.txt"), "Hello World\n")?;
/// # let home = tempfile::tempdir()?;
/// let host = rein::Host::builder().workspace(workspace.path())
/// #   .home(home.path())
///     .build()?;
///
/// let edit = serde_json::json!({"path": "notes.txt", "old_string": "World", "new_string": "rein"});
/// let result = host.call("edit_file", edit)?;
/// assert_eq!(result["replacements"], 1);
/// assert_eq!(std::fs::read_to_string(workspace.path().join("notes.txt"))?, "Hello rein\n");
///
/// // A refusal is a Failure with a stable code and what to do next.
/// let again = serde_json::json!({"path": "notes.txt", "old_string": "World", "new_string": "x"});
/// let failure = host.call("edit_file", again).unwrap_err();
/// assert_eq!(failure.code, rein::Code::OldStringNotFound);
/// # Ok(())
/// # }
/// ```
pub struct Host {
    kernel: Arc<Kernel>,
    sources: Arc<Sources>,
    /// Whether a changed rein.lock changes the packs served (not for checks' scratch hosts).
    packs_follow_lock: bool,
    limits: Limits,
    /// Lua states per generation (calls that run side by side).
    states: usize,
    /// This host's session: what it read, when changes need an earlier read.
    reads: Option<Arc<ReadLedger>>,
    /// Changes to rein.toml and rein.lock a person has not approved (not served).
    policy_pending: Vec<String>,
    /// The tools and recipes being served; a successful reload swaps in a new generation while
    /// calls in flight finish on the one they started with.
    current: std::sync::RwLock<Arc<Generation>>,
    /// One reload at a time (the watcher's and an embedder's).
    reloading: std::sync::Mutex<()>,
    /// Who hears every call this host starts, and its reloads.
    subscribers: Arc<subscribers::Subscribers>,
    /// Drives [`Host::call`]; taken apart without blocking on drop, so a Host may be dropped
    /// inside an embedder's async runtime.
    executor: Option<tokio::runtime::Runtime>,
}

impl Drop for Host {
    fn drop(&mut self) {
        if let Some(executor) = self.executor.take() {
            executor.shutdown_background();
        }
    }
}

impl Host {
    /// A builder with the defaults: the current directory as the workspace, `REIN_HOME` (or
    /// `~/.rein`) as home, nobody to approve, the default [`Limits`].
    pub fn builder() -> HostBuilder {
        HostBuilder::default()
    }

    /// The workspace, as rein resolved it (absolute, symbolic links followed).
    pub fn workspace(&self) -> &Path {
        self.kernel.scope().workspace()
    }

    /// A new call in this host's session (its read ledger, when read-before-edit is on), with
    /// nobody acting yet, heard by the host's subscribers. Add a listener of its own with
    /// [`Call::with_listener`] and pass it to [`Host::call_with`].
    pub fn new_call(&self) -> Call {
        let call = match &self.reads {
            Some(ledger) => Call::new().with_read_ledger(ledger.clone()),
            None => Call::new(),
        };
        // A host nobody listens to builds no events; subscribing later hears later calls.
        if self.subscribers.is_empty() {
            call
        } else {
            call.with_listener(self.subscribers.listener())
        }
    }

    /// Every event from now on: each call's tool calls, programs, approvals, written files and
    /// recipe steps (each naming its call), and reloads. Dropping the receiver ends it.
    pub fn subscribe(&self) -> std::sync::mpsc::Receiver<Event> {
        self.subscribers.channel()
    }

    /// `listener` hears every event from now on, synchronously where it happens (keep it
    /// short), until the returned Subscription is dropped.
    pub fn listen(&self, listener: Listener) -> Subscription {
        self.subscribers.listen(listener)
    }

    /// How the journal names the approver this host asks (unless a call brings its own).
    #[cfg(feature = "mcp")]
    pub(crate) fn approver_name(&self) -> &'static str {
        self.kernel.approver_name()
    }

    /// The generation serving now (tools, recipes and the Lua state that runs them).
    pub(crate) fn generation(&self) -> Arc<Generation> {
        self.current.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Every tool being served, by name.
    pub fn tools(&self) -> Vec<ToolInfo> {
        self.generation().registry.tools.values().cloned().collect()
    }

    /// The tool called `name`, by its own name or its MCP name (`team_kit__greet`).
    pub fn tool(&self, name: &str) -> Option<ToolInfo> {
        self.generation().registry.tool_named(name).cloned()
    }

    /// Whether a tool is called `name` (its own name or its MCP name); cheaper than `tool`.
    pub fn has_tool(&self, name: &str) -> bool {
        self.generation().registry.tool_named(name).is_some()
    }

    /// The recipe `name` stands for (its own name or its MCP name), unless a tool has that name.
    pub fn recipe_for(&self, name: &str) -> Option<String> {
        let generation = self.generation();
        if generation.registry.tool_named(name).is_some() {
            return None;
        }
        generation.registry.recipe_named(name).map(|r| r.info.name.clone())
    }

    /// Every recipe being served, by name (its `schema` is the recipe's parameters).
    pub fn recipes(&self) -> Vec<ToolInfo> {
        self.generation().registry.recipes.values().map(|r| r.info.clone()).collect()
    }

    /// Changes to the project's rein.toml and rein.lock that wait for a person
    /// (`rein approvals policy`); until then rein serves the approved versions.
    pub fn policy_pending(&self) -> &[String] {
        &self.policy_pending
    }

    /// The one warning a person reads when [`Host::policy_pending`] is not empty, in words,
    /// naming the one command that settles it; None when nothing waits.
    pub fn policy_warning(&self) -> Option<String> {
        policy_files::warning(&self.policy_pending)
    }

    /// The one command that settles what waits: `rein pack sync` when all of it is packs the
    /// project adds, else `rein approvals policy`.
    pub fn policy_review_command(&self) -> &'static str {
        policy_files::review_command(&self.policy_pending)
    }

    /// Tool and recipe files that failed to load or clash.
    pub fn problems(&self) -> Vec<LoadProblem> {
        self.generation().registry.problems.clone()
    }

    /// Where the serving generation's code comes from (project, packs, overrides).
    pub(crate) fn sources(&self) -> Arc<Sources> {
        self.generation().sources.clone()
    }

    /// Writes the `rein types` stubs into `dir` (with this host's native modules) and points
    /// the workspace's `.luarc.json` at them.
    pub fn write_types(&self, dir: &Path) -> Result<types::Written, Failure> {
        Ok(types::write_with(self.workspace(), dir, self.sources().natives())?)
    }

    /// Which generation of tools is serving (1 at start, +1 for each successful reload).
    pub fn generation_number(&self) -> u64 {
        self.generation().number
    }

    /// Every toolchain program: where it was found and its version, or what to do; and the
    /// home config.toml read.
    pub fn doctor(&self) -> doctor::Diagnosis {
        self.block_on(doctor::examine(&self.kernel, &self.new_call()))
    }

    /// The OS confinement spawned programs run under (e.g. "landlock ABI 7: enforced").
    pub fn confinement(&self) -> String {
        self.kernel.confinement()
    }

    /// The steps of a recipe and what each may ask a person for, without running anything.
    pub fn explain_recipe(&self, name: &str) -> Result<Value, Failure> {
        let generation = self.generation();
        let entry = generation.recipe_entry(name)?;
        let steps: Vec<Value> = entry
            .spec
            .steps
            .iter()
            .map(|s| json!({"name": s.name, "description": s.description, "approvals": s.approvals, "retry_max": s.retry_max, "timeout_s": s.timeout_s, "verified": s.verified}))
            .collect();
        Ok(
            json!({"recipe": name, "description": entry.spec.description, "budget": entry.spec.budget, "params": entry.info.schema, "steps": steps}),
        )
    }

    /// Runs a recipe to its end (or its first failed step) and writes its report; the host's
    /// subscribers hear it. Blocks; use [`Host::run_recipe_async`] from async code. To show its
    /// steps as they run, or to be able to stop it, use [`Host::run_recipe_with`] with a call
    /// of your own (a listener, a cancel token).
    pub fn run_recipe(&self, name: &str, args: Value, opts: RecipeOptions) -> Result<Report, Failure> {
        self.refuse_inside_async("Host::run_recipe", "Host::run_recipe_async")?;
        self.block_on(self.run_recipe_async(name, args, opts))
    }

    /// Runs a recipe; the host's subscribers hear it (see [`Host::subscribe`]). To be able to
    /// cancel it, use [`Host::run_recipe_with`] with a call made `with_cancel`.
    pub async fn run_recipe_async(&self, name: &str, args: Value, opts: RecipeOptions) -> Result<Report, Failure> {
        self.run_recipe_with(self.new_call(), name, args, opts).await
    }

    /// Runs the `checks` every tool declares (or only `tool`'s), each in a scratch workspace
    /// with the tools, packs and native modules this host serves: what `rein test` and `rein
    /// check` run. Fails with `TOOL_NOT_FOUND` for a tool the host does not serve.
    pub fn run_checks(&self, tool: Option<&str>) -> Result<Vec<checks::CheckOutcome>, Failure> {
        checks::run_all(self, tool)
    }

    /// Calls a tool with a JSON object of arguments. Blocks; use [`Host::call_async`] from
    /// async code.
    pub fn call(&self, name: &str, args: Value) -> Result<Value, Failure> {
        self.refuse_inside_async("Host::call", "Host::call_async")?;
        self.block_on(self.call_async(name, args))
    }

    /// Calls a tool with a JSON object of arguments, from async code.
    pub async fn call_async(&self, name: &str, args: Value) -> Result<Value, Failure> {
        self.call_with(self.new_call(), name, args).await
    }

    /// Calls a tool as part of `call` (from [`Host::new_call`], with a listener of its own, say).
    ///
    /// A call made `with_cancel(token)` stops promptly once the token is cancelled, with
    /// `CANCELLED`: a script in the VM at its next budget check (every 1000 Lua instructions,
    /// or 16,384 steps of a pattern match), a call waiting on a program or a sleep at once,
    /// and the programs it started are killed with their whole process group.
    pub async fn call_with(&self, call: Call, name: &str, args: Value) -> Result<Value, Failure> {
        let generation = self.generation();
        let name = generation.registry.tool_named(name).map_or(name, |t| t.name.as_str());
        if let Some(problem) = generation.registry.problem_for(name) {
            return Err(Failure::new(
                Code::ToolInvalid,
                format!("tool {name:?} cannot be used: {problem}. Fix the file; `rein check` lists every problem."),
            )
            .with_details(json!({"tool": name, "file": problem.file})));
        }
        let (call, _stop_if_dropped) = stopped_if_dropped(call);
        let result = match generation.pool.lease(call.cancel_token()).await {
            Ok(lease) => {
                let (job_call, tool) = (call.clone(), name.to_string());
                lease
                    .run(move |runtime: &mut Runtime| -> LocalBoxFuture<'_, _> {
                        Box::pin(async move { runtime.call(&job_call, &tool, &args).await })
                    })
                    .await
                    .and_then(|result| result)
            }
            Err(failure) => Err(failure),
        };
        let result = match result {
            Err(failure) if failure.code == Code::Cancelled && call.is_cancelled() => Err(cancelled(name)),
            other => other,
        };
        scrubbed(&call, result.map_err(|failure| generation.explain_not_found(failure, "tools")))
    }

    /// Runs a recipe as part of `call` (from [`Host::new_call`]); the call's listeners hear
    /// it. A call made
    /// `with_cancel(token)` is cancelled like [`Host::call_with`], and the run still ends
    /// cleanly: the step's programs stopped, its changes rolled back, the report written with
    /// status `cancelled`. The run holds one of the generation's Lua states until it ends;
    /// other calls run on the others meanwhile.
    pub async fn run_recipe_with(
        &self,
        call: Call,
        name: &str,
        args: Value,
        opts: RecipeOptions,
    ) -> Result<Report, Failure> {
        let generation = self.generation();
        let entry = generation.recipe_entry(name)?;
        // A recipe is held to what it declares, as a tool is: clients run it unasked on its word.
        let call = entry.spec.annotations.bind(call.acting_as(entry.actor.clone()), &entry.info.name);
        let (call, _stop_if_dropped) = stopped_if_dropped(call);
        let lease = generation.pool.lease(call.cancel_token()).await?;
        let (kernel, spec, recipe) = (self.kernel.clone(), entry.spec.clone(), entry.info.name.clone());
        let source = crate::recipe::report::RecipeSource {
            origin: entry.info.origin.to_string(),
            file: entry.info.file.clone(),
            replaces: entry
                .info
                .overrides
                .clone()
                .zip(entry.info.overrides_origin)
                .map(|(file, origin)| crate::recipe::report::Replaced { origin: origin.to_string(), file }),
        };
        lease
            .run(move |runtime: &mut Runtime| -> LocalBoxFuture<'_, _> {
                Box::pin(async move {
                    let code =
                        runtime.lua().app_data_ref::<RecipeCodes>().and_then(|codes| codes.0.get(&recipe).cloned());
                    let code = code.ok_or_else(|| {
                        Failure::new(Code::LuaError, format!("recipe {recipe} is not loaded in this Lua state"))
                    })?;
                    Engine { runtime, kernel: &kernel, spec: &spec, code, call, source }.run(args, opts).await
                })
            })
            .await
            .and_then(|result| result)
    }

    fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        self.executor.as_ref().expect("present until drop").block_on(future)
    }

    fn refuse_inside_async(&self, what: &str, instead: &str) -> Result<(), Failure> {
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(builder::config(format!(
                "{what} blocks and cannot run inside an async runtime; use {instead}"
            )));
        }
        Ok(())
    }
}

/// `call` with a cancel of its own, cancelled when the returned guard is dropped (by an
/// embedder giving up on the call, say): the Lua state stops the call's script instead of
/// running it on for nobody. The caller's own token still cancels it.
fn stopped_if_dropped(call: Call) -> (Call, tokio_util::sync::DropGuard) {
    let token = call.cancel_token().map_or_else(CancellationToken::new, CancellationToken::child_token);
    (call.with_cancel(token.clone()), token.drop_guard())
}

fn cancelled(tool: &str) -> Failure {
    Failure::new(
        Code::Cancelled,
        format!("the call of {tool} was cancelled; programs it started were stopped and nothing more will run"),
    )
    .with_details(json!({"tool": tool}))
}

/// A result or failure with the call's secret values replaced.
fn scrubbed(call: &Call, result: Result<Value, Failure>) -> Result<Value, Failure> {
    let secrets = call.secrets();
    match result {
        Ok(mut value) => {
            secrets.scrub_json(&mut value);
            Ok(value)
        }
        Err(mut failure) => {
            failure.message = secrets.scrub(&failure.message);
            secrets.scrub_json(&mut failure.details);
            Err(failure)
        }
    }
}
