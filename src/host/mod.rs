//! The embeddable entry point: a workspace, a home, the kernel, and the Lua tools.
//!
//! ```no_run
//! let host = rein::Host::builder().workspace("/path/to/app").build()?;
//! let result = host.call("read_file", serde_json::json!({"path": "AppScope/app.json5"}))?;
//! # Ok::<(), rein::Failure>(())
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::config::HomeConfig;
use crate::error::{Code, Failure};
use crate::kernel::approval::approver::{Approver, Headless};
use crate::kernel::approval::gate::Gate;
use crate::kernel::approval::rules::{ProjectPolicy, RuleFile};
use crate::kernel::{toolchain, Kernel, SpawnSettings};
use crate::lua::Limits;
use crate::registry::{LoadProblem, ToolInfo};
use crate::sources::Sources;

mod generation;
mod reload;

pub use generation::Generation;
pub use reload::{ReloadOutcome, Watcher};

pub struct HostBuilder {
    approver: Arc<dyn Approver>,
    read_before_edit: bool,
    workspace: Option<PathBuf>,
    home: Option<PathBuf>,
    limits: Limits,
    project_code: bool,
    /// Where the project's tools/, recipes/ and prelude/ are, when not the workspace (checks
    /// run a project's tools against a scratch workspace).
    code_from: Option<PathBuf>,
    sources: Option<Sources>,
}

impl HostBuilder {
    pub fn workspace(mut self, dir: impl Into<PathBuf>) -> Self {
        self.workspace = Some(dir.into());
        self
    }

    pub fn home(mut self, dir: impl Into<PathBuf>) -> Self {
        self.home = Some(dir.into());
        self
    }

    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Who answers when the policy asks (default: nobody — every `Ask` is refused with the
    /// command a person could run to allow it).
    pub fn approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = approver;
        self
    }

    /// Existing files may be changed only after this host read them, and only while unchanged
    /// since (NOT_READ, STALE_FILE). On for MCP connections; off by default.
    pub fn read_before_edit(mut self, on: bool) -> Self {
        self.read_before_edit = on;
        self
    }

    /// Serves exactly these sources (the project's code and packs of another host), e.g. to
    /// run a project's checks against a scratch workspace.
    pub fn sources(mut self, sources: Sources) -> Self {
        self.sources = Some(sources);
        self
    }

    /// Loads the project's tools/, recipes/ and prelude/ from `dir` instead of the workspace.
    pub fn code_from(mut self, dir: impl Into<PathBuf>) -> Self {
        self.code_from = Some(dir.into());
        self
    }

    /// Whether the workspace's own tools/ and prelude/ are loaded (default: yes).
    pub fn project_code(mut self, load: bool) -> Self {
        self.project_code = load;
        self
    }

    pub fn build(self) -> Result<Host, Failure> {
        let workspace = match self.workspace {
            Some(dir) => dir,
            None => std::env::current_dir().map_err(|e| config(format!("cannot read the current directory: {e}")))?,
        };
        let home = self.home.unwrap_or_else(default_home);
        let (kernel, project) = configured_kernel_and_policy(&workspace, &home, self.approver)?;
        let kernel = if self.read_before_edit { kernel.with_read_before_edit() } else { kernel };
        let follow_lock = self.sources.is_none() && self.code_from.is_none() && self.project_code;
        let sources = match (self.sources, &self.code_from, self.project_code) {
            (Some(sources), _, _) => sources,
            (None, _, false) => Sources::built_in_only(),
            (None, Some(dir), true) => Sources::new(dir),
            (None, None, true) => {
                let packs = crate::packs::installed::verified(kernel.scope().workspace(), kernel.scope().home())?;
                Sources::with_packs(kernel.scope().workspace(), packs).with_overrides(project.overrides)
            }
        };
        let kernel = Arc::new(kernel);
        let sources = Arc::new(sources);
        let generation = Generation::load(&kernel, &sources, self.limits, 1)?;
        let executor = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| config(format!("cannot start the async runtime: {e}")))?;
        Ok(Host {
            kernel,
            sources,
            packs_follow_lock: follow_lock,
            limits: self.limits,
            current: std::sync::RwLock::new(Arc::new(generation)),
            executor: Some(executor),
        })
    }
}

/// A kernel with everything home and the project configure: the toolchain, the environment a
/// person lets through, the approval rules, the project's deny rules, and `approver`.
pub fn configured_kernel(workspace: &Path, home: &Path, approver: Arc<dyn Approver>) -> Result<Kernel, Failure> {
    configured_kernel_and_policy(workspace, home, approver).map(|(kernel, _)| kernel)
}

/// [`configured_kernel`], and the project's rein.toml it read (for the packs it overrides).
fn configured_kernel_and_policy(
    workspace: &Path,
    home: &Path,
    approver: Arc<dyn Approver>,
) -> Result<(Kernel, ProjectPolicy), Failure> {
    let kernel = Kernel::new(workspace, home).map_err(|e| config(e.to_string()))?;
    let home_config = HomeConfig::load(kernel.scope().home())?;
    let env = |name: &str| std::env::var(name).ok();
    let toolchain = toolchain::discover(&home_config.toolchain, &home_config.programs, &env);
    let rules_path = kernel.scope().home().join("approvals.toml");
    let rules = RuleFile::load(&rules_path).map_err(config)?;
    let project = ProjectPolicy::load(kernel.scope().workspace()).map_err(config)?;
    let gate = Gate::new(approver, rules_path, rules, project.clone());
    let kernel = kernel.with_spawn(SpawnSettings { toolchain, pass_env: home_config.spawn.pass_env }).with_gate(gate);
    Ok((kernel, project))
}

/// `REIN_HOME`, else `~/.rein`.
pub fn default_home() -> PathBuf {
    if let Some(home) = std::env::var_os("REIN_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(home);
    }
    let user_home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/"));
    user_home.join(".rein")
}

fn config(message: String) -> Failure {
    Failure::new(Code::InvalidConfig, message)
}

pub struct Host {
    kernel: Arc<Kernel>,
    sources: Arc<Sources>,
    /// Whether a changed rein.lock changes the packs served (not for checks' scratch hosts).
    packs_follow_lock: bool,
    limits: Limits,
    /// The tools and recipes being served; a successful reload swaps in a new generation while
    /// calls in flight finish on the one they started with.
    current: std::sync::RwLock<Arc<Generation>>,
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
    pub fn builder() -> HostBuilder {
        HostBuilder {
            approver: Arc::new(Headless),
            read_before_edit: false,
            workspace: None,
            home: None,
            limits: Limits::default(),
            project_code: true,
            code_from: None,
            sources: None,
        }
    }

    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    pub fn workspace(&self) -> &Path {
        self.kernel.scope().workspace()
    }

    /// The generation serving now (tools, recipes and the Lua state that runs them).
    pub(crate) fn generation(&self) -> Arc<Generation> {
        self.current.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn tools(&self) -> Vec<ToolInfo> {
        self.generation().registry.tools.values().cloned().collect()
    }

    pub fn tool(&self, name: &str) -> Option<ToolInfo> {
        self.generation().registry.tools.get(name).cloned()
    }

    /// Every toolchain program: where it was found and its version, or what to do.
    pub fn doctor(&self) -> Vec<crate::doctor::ProgramReport> {
        let executor = self.executor.as_ref().expect("present until drop");
        executor.block_on(crate::doctor::examine(&self.kernel))
    }

    pub fn recipes(&self) -> Vec<ToolInfo> {
        self.generation().registry.recipes.values().map(|r| r.info.clone()).collect()
    }

    /// The steps of a recipe and what each may ask a person for, without running anything.
    pub fn explain_recipe(&self, name: &str) -> Result<Value, Failure> {
        let generation = self.generation();
        let entry = generation.recipe_entry(name)?;
        let steps: Vec<Value> = entry
            .spec
            .steps
            .iter()
            .map(|s| json!({"name": s.name, "approvals": s.approvals, "retry_max": s.retry_max, "timeout_s": s.timeout_s, "verified": s.verify.is_some()}))
            .collect();
        Ok(
            json!({"recipe": name, "description": entry.spec.description, "budget": entry.spec.budget, "params": entry.info.schema, "steps": steps}),
        )
    }

    /// Runs a recipe to its end (or first failed step) and writes its report. With
    /// `ctrl_c`, Ctrl-C cancels the run cleanly: processes stopped, the step rolled back, the
    /// report still written.
    pub fn run_recipe(
        &self,
        name: &str,
        args: Value,
        from: Option<String>,
        ctrl_c: bool,
    ) -> Result<crate::recipe::Report, Failure> {
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(config(
                "Host::run_recipe blocks and cannot run inside an async runtime; use run_recipe_async".into(),
            ));
        }
        let executor = self.executor.as_ref().expect("present until drop");
        executor.block_on(async {
            let (tx, rx) = tokio::sync::watch::channel(false);
            if ctrl_c {
                tokio::spawn(async move {
                    if tokio::signal::ctrl_c().await.is_ok() {
                        let _ = tx.send(true);
                    }
                });
            }
            let progress = crate::recipe::progress::StderrProgress::new();
            self.run_recipe_async(name, args, crate::recipe::RecipeOptions { from, cancel: Some(rx) }, &progress).await
        })
    }

    pub async fn run_recipe_async(
        &self,
        name: &str,
        args: Value,
        opts: crate::recipe::RecipeOptions,
        progress: &dyn crate::recipe::progress::Progress,
    ) -> Result<crate::recipe::Report, Failure> {
        let generation = self.generation();
        let entry = generation.recipe_entry(name)?;
        let _turn = generation.gate.lock().await;
        let engine =
            crate::recipe::Engine { runtime: &generation.runtime, kernel: &self.kernel, spec: &entry.spec, progress };
        engine.run(args, opts).await
    }

    /// Tool and recipe files that failed to load or clash.
    pub fn problems(&self) -> Vec<LoadProblem> {
        self.generation().registry.problems.clone()
    }

    /// Where the serving generation's code comes from (project, packs, overrides).
    pub fn sources(&self) -> Arc<Sources> {
        self.generation().sources.clone()
    }

    /// Which generation of tools is serving (1 at start, +1 for each successful reload).
    pub fn generation_number(&self) -> u64 {
        self.generation().number
    }

    /// Calls a tool with a JSON object of arguments. Blocks; use [`Host::call_async`] from
    /// async code.
    pub fn call(&self, name: &str, args: Value) -> Result<Value, Failure> {
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(config(
                "Host::call blocks and cannot run inside an async runtime; use Host::call_async".into(),
            ));
        }
        let executor = self.executor.as_ref().expect("present until drop");
        executor.block_on(self.call_async(name, args))
    }

    pub async fn call_async(&self, name: &str, args: Value) -> Result<Value, Failure> {
        let generation = self.generation();
        if let Some(problem) = generation.registry.problem_for(name) {
            return Err(Failure::new(
                Code::ToolInvalid,
                format!(
                    "tool {name:?} cannot be used: {}: {}. Fix the file; `rein check` lists every problem.",
                    problem.file, problem.message
                ),
            )
            .with_details(json!({"tool": name, "file": problem.file})));
        }
        let _turn = generation.gate.lock().await;
        generation.runtime.call(name, &args).await
    }
}
