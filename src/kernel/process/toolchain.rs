//! The toolchain profile: what the kernel asks about the programs it may run. The kernel knows
//! how to run *a* program safely — the scope, the gate, the environment allow-list, a deadline,
//! confinement, the journal — but no program by name. A profile (for the HarmonyOS toolchain,
//! `crate::harmony::profile::Harmony`) answers for its programs, held in
//! [`SpawnSettings`](super::SpawnSettings):
//!
//! - which programs there are and where each was found ([`ToolchainProfile::locate`]),
//! - the policy's decision for a command line ([`ToolchainProfile::decide`]),
//! - what the program may reach while it runs ([`ToolchainProfile::grants`]),
//! - which flags carry a secret value ([`ToolchainProfile::secret_flags`]),
//! - and the hooks around a spawn, each with a default that does nothing: the arguments the
//!   profile fills in ([`ToolchainProfile::prepare_args`]), what it reads before deciding
//!   ([`ToolchainProfile::before_decide`]), what runs before the program
//!   ([`ToolchainProfile::before_spawn`], [`ToolchainProfile::check`]), its environment
//!   ([`ToolchainProfile::adjust_env`]), its argv ([`ToolchainProfile::argv`]).
//!
//! Another toolchain is added the same way: a type implementing [`ToolchainProfile`], given to
//! the kernel with [`Kernel::with_spawn`](crate::kernel::Kernel::with_spawn). Only `locate`,
//! `decide` and `grants` are required.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::time::Duration;

use super::env::ToolchainVars;
use super::grants::{Profile, SpawnFacts};
use super::sockets::SocketKind;
use crate::kernel::policy::shapes::Effect;
use crate::kernel::policy::Decision;
use crate::kernel::{Call, Kernel, KernelError, PathClass};

/// Where a program was found: what is executed, and the files it runs first (a script, an
/// archive its runtime loads), which a person's question names too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    pub runs_first: Vec<PathBuf>,
}

/// A program the profile knows that was not found: every place looked at, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Missing {
    pub tried: Vec<String>,
    pub fix: String,
}

/// What a profile's hook that runs before the program gives back: nothing, or a refusal.
pub type BeforeSpawn<'a> = Pin<Box<dyn Future<Output = Result<(), KernelError>> + Send + 'a>>;
/// What a profile's hook that reads before a decision gives back: nothing (what it read, it
/// keeps), or a refusal (what the read must wait for could not be had).
pub type BeforeDecide<'a> = BeforeSpawn<'a>;

/// One spawn as a hook sees it.
pub struct Spawn<'a> {
    pub kernel: &'a Kernel,
    pub call: &'a Call,
    pub program: &'a str,
    pub args: &'a [String],
}

/// What a toolchain tells the kernel about its programs (module docs).
pub trait ToolchainProfile: std::fmt::Debug + Send + Sync + 'static {
    /// `program` as found on this machine, or why it was not; `None` when the profile knows no
    /// such program (the kernel then refuses it: it runs nothing else).
    fn locate(&self, program: &str) -> Option<Result<Found, Missing>>;

    /// The policy's decision on running `program args` in a directory of class `cwd`;
    /// `classify` tells where a path argument points; `workspace_text` reads a small file of the
    /// project (its settings, `rel` to the workspace root) as every workspace file is read, or
    /// `None` when it cannot be (what needs it then asks).
    fn decide(
        &self,
        program: &str,
        args: &[String],
        cwd: PathClass,
        classify: &dyn Fn(&str) -> PathClass,
        workspace_text: &dyn Fn(&str) -> Option<String>,
    ) -> Decision;

    /// Learns from what a finished run of `program args` printed (a fact about the world a
    /// later decision may rest on: the profile records only what the program itself printed).
    fn observe(&self, _program: &str, _args: &[String], _output: &super::spawn::SpawnOutput) {}

    /// What `program` may reach on disk and on the network while it runs.
    fn grants(&self, program: &str, found: &Found, facts: &SpawnFacts) -> Profile;

    /// What running `program args` does, as a tool's annotations are held to it: a command the
    /// profile does not describe may replace or remove anything.
    fn effect(&self, program: &str, args: &[String]) -> Effect {
        let _ = (program, args);
        Effect::Replaces
    }

    /// Why a person is asked about `program args`, in words about what it does; `outside` when
    /// a path of it lies outside the workspace.
    fn why_asked(&self, program: &str, args: &[String], outside: bool) -> String {
        let _ = (program, args, outside);
        super::WHY_ASK.to_string()
    }

    /// The command `program args` falls back to when the other side does not know it (the
    /// same action in an older form): one yes covers both, once.
    fn fallback_of(&self, program: &str, args: &[String]) -> Option<Vec<String>> {
        let _ = (program, args);
        None
    }

    /// The kinds of socket `program` may open where the system-call filter runs without file
    /// confinement (the same as its grants' `sockets`).
    fn sockets(&self, program: &str) -> Vec<SocketKind> {
        let _ = program;
        Vec::new()
    }

    /// The programs that may send datagrams, as `rein doctor` names them.
    fn datagram_programs(&self) -> Vec<String> {
        Vec::new()
    }

    /// The programs a person added themselves (home config.toml `[programs]`): their arguments
    /// are theirs, only ever shown escaped (`policy::controls`).
    fn is_persons_own(&self, program: &str) -> bool {
        let _ = program;
        false
    }

    /// Flags whose next argument is a secret: hidden from the journal, events and questions.
    fn secret_flags(&self) -> &[&'static str] {
        &[]
    }

    /// The variables of rein's environment its programs get (the toolchain's homes, its own
    /// prefixes); none that looks secret ever passes (`env`).
    fn passed_env(&self) -> ToolchainVars {
        ToolchainVars::default()
    }

    /// Folders a listing does not descend into: the toolchain's build outputs and dependencies.
    fn bulky_dirs(&self) -> &[&'static str] {
        &[]
    }

    /// Where a project's own code runs in a build, as a refusal names it to a person.
    fn build_scripts(&self) -> &'static str {
        "the project's build scripts"
    }

    /// The names of the programs the profile runs, as the refusal of an unknown one lists them.
    fn known(&self) -> String {
        String::new()
    }

    /// The default deadline of a command line and the most a call may ask for.
    fn deadline(&self, program: &str, args: &[String]) -> (Duration, Duration) {
        let _ = (program, args);
        (Duration::from_secs(60), Duration::from_secs(600))
    }

    /// The command line as it will run, with what the profile fills in itself (a secret named
    /// by `secret`, which the script never sees), or a refusal before anything starts.
    fn prepare_args(
        &self,
        spawn: &Spawn,
        args: Vec<String>,
        secret: Option<&str>,
        resolve: &dyn Fn(&str) -> Option<PathBuf>,
    ) -> Result<Vec<String>, KernelError> {
        let _ = (spawn, secret, resolve);
        Ok(args)
    }

    /// Whether a child never inherits the environment variable `name`.
    fn withholds_env(&self, name: &str) -> bool {
        let _ = name;
        false
    }

    /// After the policy: whether the decision stands for this call (`Some(why)` refuses).
    fn admit(&self, spawn: &Spawn, decision: &Decision) -> Option<String> {
        let _ = (spawn, decision);
        None
    }

    /// What the profile reads before it decides on the command line (a fact the decision rests
    /// on, read by running a program that only reads, through `spawn.kernel.look`); nothing by
    /// default. What it learns it keeps from `observe`; a failed read leaves the fact unknown.
    fn before_decide<'a>(&'a self, spawn: Spawn<'a>) -> BeforeDecide<'a> {
        let _ = spawn;
        Box::pin(async { Ok(()) })
    }

    /// What the call must hold before the program runs (the decision was not a plain allow).
    fn before_spawn<'a>(&'a self, spawn: Spawn<'a>, decision: &Decision) -> BeforeSpawn<'a> {
        let _ = (spawn, decision);
        Box::pin(async { Ok(()) })
    }

    /// What must hold in the program's environment before it starts.
    fn check(&self, program: &str, args: &[String], env: &[(String, String)]) -> Result<(), KernelError> {
        let _ = (program, args, env);
        Ok(())
    }

    /// The program's own variables, added to the environment it gets.
    fn adjust_env(&self, program: &str, found: &Found, env: &mut Vec<(String, String)>, workspace: &Path) {
        let _ = (program, found, env, workspace);
    }

    /// Whether the program runs alone (it holds a secret where other processes could read it).
    fn runs_alone(&self, program: &str) -> bool {
        let _ = program;
        false
    }

    /// The arguments once the program's environment is settled (`secret` as in `prepare_args`;
    /// `private_tmp` is this spawn's own temp folder).
    fn hand_over(
        &self,
        spawn: &Spawn,
        args: Vec<String>,
        secret: Option<&str>,
        private_tmp: &Path,
    ) -> Result<Vec<String>, KernelError> {
        let _ = (spawn, secret, private_tmp);
        Ok(args)
    }

    /// The argv the found program is executed with (`command`: the command line as shown, for
    /// a refusal).
    fn argv(
        &self,
        program: &str,
        found: &Found,
        args: Vec<String>,
        private_tmp: &Path,
        command: &str,
    ) -> Result<Vec<String>, KernelError> {
        let _ = (program, private_tmp, command);
        Ok(found.runs_first.iter().map(|p| p.display().to_string()).chain(args).collect())
    }

    /// The arguments as the journal and the events show the command.
    fn shown_args(&self, program: &str, args: Vec<String>) -> Vec<String> {
        let _ = program;
        args
    }

    /// Whether `program args` may be kept running past the call that starts it
    /// (`process::kept`): only what the profile names here, always with a person's yes.
    fn may_keep(&self, program: &str, args: &[String]) -> bool {
        let _ = (program, args);
        false
    }

    /// The program's own stop for a kept `program args` (run before its process group is
    /// ended), if it has one.
    fn kept_stop(&self, program: &str, args: &[String]) -> Option<Vec<String>> {
        let _ = (program, args);
        None
    }

    /// The profile itself, for the room it comes from to find its own state again.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// A profile that knows no program: a kernel that spawns nothing.
#[derive(Debug, Default)]
pub struct NoPrograms;

impl ToolchainProfile for NoPrograms {
    fn locate(&self, _program: &str) -> Option<Result<Found, Missing>> {
        None
    }

    fn decide(
        &self,
        program: &str,
        _: &[String],
        _: PathClass,
        _: &dyn Fn(&str) -> PathClass,
        _: &dyn Fn(&str) -> Option<String>,
    ) -> Decision {
        Decision::Deny(format!("{program} is no program this rein knows"))
    }

    fn grants(&self, _program: &str, _found: &Found, _facts: &SpawnFacts) -> Profile {
        Profile::default()
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
