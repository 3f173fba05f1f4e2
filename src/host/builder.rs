//! Building a [`Host`]: the workspace and home, who approves, the limits, and where the code
//! comes from; the kernel configured from home and the project.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::config::{HomeConfig, LuaConfig};
use super::generation::Generation;
use super::nested_calls::only_own_code_calling_no_tool;
use super::policy_files::{self, PolicyFiles};
use super::project_files::{ProjectFiles, Scan, SourceError};
use super::scan_cache::ScanCache;
use super::sources::{wanted, PackLayer, Sources};
use super::Host;
use crate::error::{Code, Failure};
use crate::harmony::hdc_servers::HdcServers;
use crate::harmony::installed::Installed;
use crate::harmony::profile::Harmony;
use crate::harmony::signing::SigningSecrets;
use crate::harmony::toolchain;
use crate::harmony::ui_screens::Screens;
use crate::kernel::gate::{Gate, RuleFile};
use crate::kernel::policy::rules::APPROVALS_FILE;
use crate::kernel::policy::{Approver, Headless};
use crate::kernel::{Kernel, Listener, PackGrant, ReadLedger, SpawnSettings};
use crate::lua::native::{NativeModule, NativeModules};
use crate::lua::Limits;
use crate::packs::lockfile::Lock;

/// Configures a [`Host`]: where the workspace and home are, who approves, the limits of each
/// call, and where the Lua code comes from. Start from [`Host::builder`].
///
/// ```
/// use std::sync::Arc;
///
/// # fn main() -> Result<(), rein::Failure> {
/// # let scratch = tempfile::tempdir().unwrap();
/// # let (app, home) = (scratch.path().join("app"), scratch.path().join("home"));
/// # std::fs::create_dir(&app).unwrap();
/// let limits = rein::Limits { wall_time: std::time::Duration::from_secs(60), ..rein::Limits::default() };
/// let host = rein::Host::builder()
///     .workspace(&app)
///     .home(&home)
///     .approver(Arc::new(rein::Headless))
///     .limits(limits)
///     .read_before_edit(true)
///     .build()?;
/// assert!(host.has_tool("edit_file"));
/// # Ok(())
/// # }
/// ```
pub struct HostBuilder {
    approver: Arc<dyn Approver>,
    read_before_edit: bool,
    workspace: Option<PathBuf>,
    home: Option<PathBuf>,
    limits: Limits,
    /// Lua states per generation, when the embedder chose (else home config, else 4).
    lua_states: Option<usize>,
    project_code: bool,
    /// Where the project's tools/, recipes/ and prelude/ are, when not the workspace.
    code_from: Option<PathBuf>,
    sources: Option<Sources>,
    listeners: Vec<Listener>,
    natives: NativeModules,
    /// Tools and recipes given as text: `(tools/x.lua, text)`.
    given_files: Vec<(String, String)>,
    /// Serve only these names (a process making one call), when set.
    only: Option<Vec<String>>,
    /// The first native module that could not be added, reported by `build`.
    refused: Option<Failure>,
}

impl Default for HostBuilder {
    fn default() -> HostBuilder {
        HostBuilder {
            approver: Arc::new(Headless),
            read_before_edit: false,
            workspace: None,
            home: None,
            limits: Limits::default(),
            lua_states: None,
            project_code: true,
            code_from: None,
            sources: None,
            listeners: Vec::new(),
            natives: NativeModules::default(),
            given_files: Vec::new(),
            refused: None,
            only: None,
        }
    }
}

impl HostBuilder {
    /// The project rein works on (default: the current directory). Its own tools/, recipes/
    /// and prelude/ are served too, and its `.rein/` keeps the journal and run reports.
    pub fn workspace(mut self, dir: impl Into<PathBuf>) -> Self {
        self.workspace = Some(dir.into());
        self
    }

    /// rein's home: config.toml, approvals.toml, installed packs (default: `REIN_HOME`, else
    /// `~/.rein`). It need not exist; writing it always needs a person at rein's terminal.
    pub fn home(mut self, dir: impl Into<PathBuf>) -> Self {
        self.home = Some(dir.into());
        self
    }

    /// The limits of each call's Lua (default: [`Limits::default`]).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Serves only the tools and recipes called `names` (and the tools `[overrides]` maps them
    /// to): Lua loads only the files that declare one of them, which is what a process making a
    /// single call needs (`rein call`). Any other name is TOOL_NOT_FOUND, and `tools()` lists
    /// only these: build a whole host to list, check or serve everything.
    pub fn serving_only<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.only = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// How many calls run side by side: Lua states per generation (default: home config's
    /// `[lua] states`, else 4; at least 1). A recipe holds one state for its whole run.
    pub fn lua_states(mut self, states: usize) -> Self {
        self.lua_states = Some(states.max(1));
        self
    }

    /// Who answers when the policy asks (default: nobody — every `Ask` is refused with the
    /// command a person could run to allow it).
    pub fn approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = approver;
        self
    }

    /// Existing files may be changed only after this host's session read them, and only while
    /// unchanged since (NOT_READ, STALE_FILE). On for MCP connections; off by default.
    pub fn read_before_edit(mut self, on: bool) -> Self {
        self.read_before_edit = on;
        self
    }

    /// Serves exactly these sources (the project's code and packs of another host), e.g. to
    /// run a project's checks against a scratch workspace.
    pub(crate) fn sources(mut self, sources: Sources) -> Self {
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

    /// `listener` hears every event of the host (see [`Host::subscribe`]) from the start,
    /// synchronously where the fact happens: keep it short.
    pub fn on_event(mut self, listener: Listener) -> Self {
        self.listeners.push(listener);
        self
    }

    /// Serves `module` to every tool and recipe as `rein.<name>` (read-only, like `rein.fs`).
    /// Its functions act through the kernel for the call they serve (see
    /// [`NativeCall`](crate::lua::NativeCall)). A name rein uses, or a parameter type rein
    /// does not check, makes `build` fail with INVALID_CONFIG.
    pub fn module(mut self, module: NativeModule) -> Self {
        if let Err(failure) = self.natives.add(module) {
            self.refused.get_or_insert(failure);
        }
        self
    }

    /// Serves a tool from `text` (what a `tools/<name>.lua` file would hold), after the
    /// built-ins and before packs and the project, which may replace it by name.
    pub fn tool_source(mut self, name: &str, text: impl Into<String>) -> Self {
        self.given_files.push((format!("tools/{name}.lua"), text.into()));
        self
    }

    /// Serves a recipe from `text` (what a `recipes/<name>.lua` file would hold), like
    /// [`HostBuilder::tool_source`].
    pub fn recipe_source(mut self, name: &str, text: impl Into<String>) -> Self {
        self.given_files.push((format!("recipes/{name}.lua"), text.into()));
        self
    }

    /// Builds the host; any problem with its configuration or its packs is an error.
    pub fn build(self) -> Result<Host, Failure> {
        self.prepare(false)?.0.load()
    }

    /// Builds the host serving what it can: a pack that is not installed, does not match
    /// rein.lock or does not load is left out, and said so, instead of failing the whole host
    /// (`rein serve` still answers its client and tells it what is missing). A configuration
    /// that cannot be read (rein.toml, home config, approvals) is still an error: without it,
    /// rein cannot know what it must refuse.
    pub fn build_lenient(self) -> Result<(Host, Vec<Failure>), Failure> {
        let (prepared, skipped) = self.prepare(true)?;
        Ok((prepared.load()?, skipped))
    }

    /// Everything but the Lua: the configuration read, the kernel, the packs checked and the
    /// project's files read. What is wrong with them is known here; loading the tools is
    /// [`Prepared::load`] (`rein serve` answers `initialize` between the two).
    pub(crate) fn prepare(self, lenient: bool) -> Result<(Prepared, Vec<Failure>), Failure> {
        if let Some(failure) = self.refused {
            return Err(failure);
        }
        if let Some((rel, _)) = self.given_files.iter().find(|(rel, _)| !is_plain_name(rel)) {
            return Err(config(format!(
                "{rel:?} cannot be served: a tool or recipe given as text needs a plain name (letters, digits, _ and -)"
            )));
        }
        let workspace = match self.workspace {
            Some(dir) => dir,
            None => std::env::current_dir().map_err(|e| config(format!("cannot read the current directory: {e}")))?,
        };
        let home = self.home.unwrap_or_else(default_home);
        let (kernel, policy, home_config) = configured_kernel_and_policy(&workspace, &home, self.approver)?;
        let states = self.lua_states.or(home_config.lua.states).unwrap_or(LuaConfig::DEFAULT_STATES);
        let follow_lock = self.sources.is_none() && self.code_from.is_none() && self.project_code;
        let mut skipped = Vec::new();
        let sources = match (self.sources, &self.code_from, self.project_code) {
            (Some(sources), _, _) => sources,
            (None, _, false) => Sources::built_in_only(),
            (None, Some(dir), true) => Sources::new(dir).map_err(source_failure)?,
            (None, None, true) => {
                let (packs, problems) = locked_packs(&kernel, &policy.lock, lenient)?;
                skipped = problems;
                let files = match &self.only {
                    Some(names) => read_for_names(&kernel, names, &policy.config.overrides),
                    None => ProjectFiles::read(kernel.scope().workspace()),
                };
                Sources::with_packs_and_files(kernel.scope().workspace(), packs, files.map_err(source_failure)?)
                    .with_overrides(policy.config.overrides.clone())
            }
        };
        let sources = if self.natives.is_empty() && self.given_files.is_empty() {
            sources
        } else {
            sources.with_embedder(self.natives, self.given_files)
        };
        // Only the files that can declare the names, when they are all rein's own and call no
        // other tool (which would then not be there); else everything.
        let sources = match self.only.map(|names| sources.clone().serving_only(names)) {
            Some(only) if only_own_code_calling_no_tool(&only) => only,
            _ => whole(sources).map_err(source_failure)?,
        };
        let kernel = Arc::new(kernel);
        let sources = Arc::new(sources);
        let subscribers = Arc::new(super::subscribers::Subscribers::default());
        for listener in self.listeners {
            subscribers.add(listener);
        }
        let prepared = Prepared {
            kernel,
            sources,
            follow_lock,
            limits: self.limits,
            states,
            read_before_edit: self.read_before_edit,
            policy_pending: policy.pending,
            subscribers,
        };
        Ok((prepared, skipped))
    }
}

/// A host but for its tools: what [`HostBuilder::prepare`] found, ready to load.
pub(crate) struct Prepared {
    kernel: Arc<Kernel>,
    sources: Arc<Sources>,
    follow_lock: bool,
    limits: Limits,
    states: usize,
    read_before_edit: bool,
    policy_pending: Vec<String>,
    subscribers: Arc<super::subscribers::Subscribers>,
}

impl Prepared {
    /// The warning [`Host::policy_warning`] will give.
    #[cfg(feature = "mcp")]
    pub(crate) fn policy_warning(&self) -> Option<String> {
        policy_files::warning(&self.policy_pending)
    }

    /// Loads the tools and recipes into the first Lua state: the host.
    pub(crate) fn load(self) -> Result<Host, Failure> {
        let generation = Generation::load(&self.kernel, &self.sources, self.limits, self.states, 1)?;
        let executor = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| config(format!("cannot start the async runtime: {e}")))?;
        Ok(Host {
            kernel: self.kernel,
            sources: self.sources,
            packs_follow_lock: self.follow_lock,
            limits: self.limits,
            states: self.states,
            reads: self.read_before_edit.then(|| Arc::new(ReadLedger::new())),
            policy_pending: self.policy_pending,
            current: std::sync::RwLock::new(Arc::new(generation)),
            reloading: std::sync::Mutex::new(()),
            subscribers: self.subscribers,
            executor: Some(executor),
        })
    }
}

/// The packs `lock` (the approved rein.lock) pins, each verified against it. Strict: the first
/// problem is the error. Lenient: a pack with a problem is left out and its problem returned.
pub(crate) fn locked_packs(
    kernel: &Kernel,
    lock: &Lock,
    lenient: bool,
) -> Result<(Vec<PackLayer>, Vec<Failure>), Failure> {
    let scope = kernel.scope();
    let mut packs = Vec::new();
    let mut problems = Vec::new();
    for locked in &lock.packs {
        match crate::packs::installed::verify_one(scope.home(), locked) {
            Ok(pack) => packs.push(PackLayer {
                grant: Arc::new(PackGrant::new(pack.manifest.name.clone(), &pack.manifest.permissions)),
                name: pack.manifest.name,
                root: pack.dir,
            }),
            Err(failure) if lenient => problems.push(failure),
            Err(failure) => return Err(failure),
        }
    }
    Ok((packs, problems))
}

/// The project's code for a host serving only `names`: the tool and recipe files the scan
/// cache in home knows cannot declare one of them are left unread (issue 41).
fn read_for_names(
    kernel: &Kernel,
    names: &[String],
    overrides: &std::collections::BTreeMap<String, String>,
) -> Result<ProjectFiles, SourceError> {
    let wanted = wanted(names.iter().cloned(), overrides);
    let unwanted = |rel: &str, written: &[String]| !wanted.may_declare_names(rel, None, written);
    let mut cache = ScanCache::open(kernel.scope().home(), kernel.scope().workspace());
    let files =
        ProjectFiles::read_scanning(kernel.scope().workspace(), Scan { cache: &mut cache, unwanted: &unwanted })?;
    cache.save();
    tracing::debug!(
        "{} tool and recipe files left unread: the scan cache knows they cannot declare {names:?}",
        files.left_out()
    );
    Ok(files)
}

/// `sources` serving every name: the project's files read whole if they were read in part.
fn whole(sources: Sources) -> Result<Sources, SourceError> {
    match sources.project_root().filter(|_| sources.project_files_partial()) {
        Some(root) => {
            let files = sources.project_files().map(|partial| ProjectFiles::read_since(root, partial)).transpose()?;
            Ok(sources.with_project_files(files.unwrap_or_default()))
        }
        None => Ok(sources),
    }
}

fn source_failure(err: SourceError) -> Failure {
    Failure::new(Code::IoError, err.to_string())
}

/// A kernel with everything home and the project configure: the toolchain, the environment a
/// person lets through, the approval rules, the project's deny rules, and `approver`.
pub(crate) fn configured_kernel(workspace: &Path, home: &Path, approver: Arc<dyn Approver>) -> Result<Kernel, Failure> {
    configured_kernel_and_policy(workspace, home, approver).map(|(kernel, _, _)| kernel)
}

/// [`configured_kernel`], and the project's policy files it read (as a person approved them).
pub(crate) fn configured_kernel_and_policy(
    workspace: &Path,
    home: &Path,
    approver: Arc<dyn Approver>,
) -> Result<(Kernel, PolicyFiles, HomeConfig), Failure> {
    let kernel = Kernel::new(workspace, home).map_err(|e| config(e.to_string()))?;
    let home_config = HomeConfig::load(kernel.scope().home())?;
    let env = |name: &str| std::env::var(name).ok();
    let toolchain = toolchain::discover(&home_config.toolchain, &home_config.programs, &env);
    let rules_path = kernel.scope().home().join(APPROVALS_FILE);
    let rules = RuleFile::load(&rules_path).map_err(|e| config(e.to_string()))?;
    let policy = policy_files::load(kernel.scope().workspace(), kernel.scope().home())?;
    let gate = Gate::new(approver, rules_path, rules, policy.config.deny.clone());
    let labs = home_config.devices.iter().map(|(name, d)| (name.clone(), d.server.clone())).collect();
    let harmony = Harmony {
        toolchain,
        signing: SigningSecrets::new(home_config.signing.clone()),
        servers: HdcServers::new(env("OHOS_HDC_SERVER_PORT").as_deref(), labs),
        lease_wait: home_config.lease.wait_s.map(std::time::Duration::from_secs),
        hvigor_reads_signing_material: home_config.spawn.hvigor_reads_signing_material,
        foregrounds: Default::default(),
        installed: Installed::new(kernel.scope().home(), kernel.scope().workspace()),
        screens: Screens::new(kernel.scope().workspace()),
        identities: Default::default(),
    };
    let spawn = SpawnSettings {
        profile: Arc::new(harmony),
        pass_env: home_config.spawn.pass_env.clone(),
        confine: home_config.spawn.confine,
        connect_ports: home_config.spawn.connect_ports.clone(),
        writable: home_config.spawn.writable.clone(),
    };
    let kernel = kernel.with_spawn(spawn).with_gate(gate);
    Ok((kernel, policy, home_config))
}

/// Whether `tools/<name>.lua` names a file directly in its folder.
fn is_plain_name(rel: &str) -> bool {
    let name = rel.split_once('/').map_or("", |(_, rest)| rest).trim_end_matches(".lua");
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `REIN_HOME`, else `~/.rein` (Windows: `%USERPROFILE%\.rein`, where `HOME` is rarely set).
pub fn default_home() -> PathBuf {
    if let Some(home) = std::env::var_os("REIN_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(home);
    }
    let user_home_var = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
    let user_home = std::env::var_os(user_home_var).map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/"));
    user_home.join(".rein")
}

pub(crate) fn config(message: String) -> Failure {
    Failure::new(Code::InvalidConfig, message)
}
