//! Running programs. `Kernel::run` puts a program through every check — known program, found
//! on this machine, working directory in the workspace, the gate (policy, project denies,
//! acting packs' permissions, approvals), the call's spawn budget, the environment allow-list,
//! a bounded deadline — then the process runner. Which programs there are, and all the kernel
//! asks about them, is the toolchain profile's (`toolchain`).
//!
//! - `toolchain`: the toolchain profile: programs, decisions, grants, secret flags, hooks
//! - `spawn`: the runner (own process group, deadline, bounded output, line streaming)
//! - `capture`: head-and-tail output capture
//! - `grants`: what a program may reach (the grant set; the rules every profile's grants obey)
//! - `confine`: Landlock confinement of each program (its grants: `grants`); `carve` grants
//!   around a path that must get less than its directory, walking folders by handle
//!   (`handles`)
//! - `seatbelt`: the same grants as a Seatbelt profile for `sandbox-exec` (macOS; pure, tested
//!   everywhere)
//! - `windows_acl`: Windows confinement's plan (the ACL entries of a write-restricted token's
//!   capability SID, recorded before they are added and removed after; tested everywhere)
//! - `windows_launch`: the command line and environment block a restricted-token spawn hands
//!   `CreateProcessAsUserW` (Windows; pure, tested everywhere)
//! - `privileges`: the capabilities a program never inherits (Linux)
//! - `syscalls`: the system calls a program may not make (every socket kind not on its list,
//!   System V IPC, keyrings, user namespaces, io_uring; Linux)
//! - `sockets`: the kinds of socket a program may open (the list `syscalls` enforces)
//! - `env`: the environment a program sees
//! - `planted`: the `.git` a confined program makes where it may write, stopped and removed
//! - `profile`: what one spawn may reach (the places rein knows, for the profile's grants)
//! - `turns`: a program whose command line holds a secret runs alone
//! - `question`: what a person is told about a program before their yes
//! - `kept`: the one class of program allowed to outlive its call (held by `rein hold`,
//!   listed by `rein ps`, ended by `rein stop`)

pub mod capture;
#[cfg(target_os = "linux")]
mod carve;
pub mod confine;
pub mod env;
pub mod grants;
#[cfg(target_os = "linux")]
mod handles;
pub mod kept;
pub mod planted;
#[cfg(target_os = "linux")]
mod privileges;
mod profile;
pub mod question;
pub mod seatbelt;
pub mod sockets;
pub mod spawn;
#[cfg(target_os = "linux")]
pub mod syscalls;
pub mod toolchain;
mod turns;
pub mod windows_acl;
// Used by the Windows spawn only; its tests run on every OS.
#[cfg_attr(not(windows), allow(dead_code))]
pub mod windows_launch;

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::secrets::redact::Redacted;
pub use spawn::OnLine;
use spawn::{SpawnOutput, SpawnRequest, Stream};

use super::journal::{Action, Entry};
use super::policy::rules::command_line;
use super::policy::{controls, ApprovalRequest, Asked, DecidedBy, Decision, Rule, Subject};
use super::{Call, EventKind, Kernel, KernelError, PathClass};
use toolchain::{Found, NoPrograms, Spawn, ToolchainProfile};

/// Output kept per stream: the first and last half MiB.
const OUTPUT_LIMIT: usize = 1024 * 1024;

/// Why the policy asks about a program.
/// Why the policy asks about a program, where its profile names no reason of its own.
pub const WHY_ASK: &str = "it changes a device, reaches the network or touches files outside the workspace";

/// Why a program runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Purpose {
    /// A tool or recipe acts through it: journaled, confined to what the program needs.
    Act,
    /// rein only reads what it prints (`rein doctor`'s versions): see [`Kernel::look`].
    Look,
}

/// What may be spawned, which looks-secret environment variables a person lets through, and
/// where the signing passwords come from.
#[derive(Debug, Clone)]
pub struct SpawnSettings {
    /// The programs there are, and all the kernel asks about them (`toolchain`).
    pub profile: std::sync::Arc<dyn ToolchainProfile>,
    pub pass_env: Vec<String>,
    pub confine: confine::ConfineMode,
    /// More TCP ports a person lets a program connect to: program name → ports.
    pub connect_ports: std::collections::BTreeMap<String, Vec<u16>>,
    /// Directories a person lets every confined program write.
    pub writable: Vec<std::path::PathBuf>,
}

impl Default for SpawnSettings {
    fn default() -> SpawnSettings {
        SpawnSettings {
            profile: std::sync::Arc::new(NoPrograms),
            pass_env: Vec::new(),
            confine: confine::ConfineMode::default(),
            connect_ports: Default::default(),
            writable: Vec::new(),
        }
    }
}

/// How to run a program ([`NativeCall::run`](crate::NativeCall::run), `rein.proc.run`).
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Working directory, relative to the workspace (default: the workspace root).
    pub cwd: Option<String>,
    /// May lower the program's default deadline, or raise it up to its cap.
    pub timeout_ms: Option<u64>,
    /// What to write to its stdin (default: nothing; stdin is closed).
    pub stdin: Option<Vec<u8>>,
    /// Extra environment variables (they obey the same allow-list).
    pub env: Vec<(String, String)>,
    /// hap-sign-tool only: the signing config (home config.toml `[signing.<name>]`) whose
    /// plaintext passwords the kernel appends as `-keyPwd`/`-keystorePwd` when it spawns.
    pub signing: Option<String>,
}

impl Kernel {
    /// The profile of the programs this kernel spawns.
    pub fn spawn_profile(&self) -> &dyn ToolchainProfile {
        self.spawn.profile.as_ref()
    }

    pub async fn run(
        &self,
        call: &Call,
        program: &str,
        args: Vec<String>,
        opts: RunOptions,
        on_line: &mut OnLine<'_>,
    ) -> Result<SpawnOutput, KernelError> {
        self.run_for(Purpose::Act, call, program, args, opts, on_line).await
    }

    /// Runs a program only to read what it prints (`rein doctor`'s version probes), leaving
    /// the project and the homes as they were: rein makes no folder for it (caches, build
    /// outputs), it is confined so that it can write nothing of the workspace or a home
    /// (where Landlock is unavailable the program itself runs unconfined, as every program
    /// does there), and — since it changes nothing — it is not journaled. The policy and the
    /// gate still decide whether it runs.
    pub async fn look(
        &self,
        call: &Call,
        program: &str,
        args: Vec<String>,
        timeout_ms: u64,
    ) -> Result<SpawnOutput, KernelError> {
        let opts = RunOptions { timeout_ms: Some(timeout_ms), ..Default::default() };
        self.run_for(Purpose::Look, call, program, args, opts, &mut |_, _| Ok(())).await
    }

    async fn run_for(
        &self,
        purpose: Purpose,
        call: &Call,
        program: &str,
        args: Vec<String>,
        opts: RunOptions,
        on_line: &mut OnLine<'_>,
    ) -> Result<SpawnOutput, KernelError> {
        let profile = self.spawn.profile.as_ref();
        let secret_flags = profile.secret_flags();
        if let Some(found) = controls::control_in(profile.is_persons_own(program), &args) {
            let entry =
                Entry::new(Action::Spawn, &crate::visible::line(&Redacted::new(program, &args, secret_flags).line));
            let result = Err(KernelError::ControlInArgument {
                program: program.to_string(),
                argument: found.argument,
                position: found.position,
                shown: found.shown,
            });
            if purpose == Purpose::Act {
                self.record(call, entry, &result);
            }
            return result;
        }
        let cwd = self.scope.resolve(opts.cwd.as_deref().unwrap_or(".")).map(|c| c.real).unwrap_or_default();
        let resolve = |p: &str| {
            let joined = if Path::new(p).is_absolute() { PathBuf::from(p) } else { cwd.join(p) };
            self.scope.resolve(&joined.display().to_string()).ok().map(|r| r.real)
        };
        let spawn = Spawn { kernel: self, call, program, args: &args };
        let args = match profile.prepare_args(&spawn, args.clone(), opts.signing.as_deref(), &resolve) {
            Ok(args) => args,
            Err(refused) => {
                let entry = Entry::new(Action::Spawn, &Redacted::new(program, &args, secret_flags).line);
                let result = Err(refused);
                if purpose == Purpose::Act {
                    self.record(call, entry, &result);
                }
                return result;
            }
        };
        let redacted = Redacted::new(program, &args, secret_flags).with_secrets(call.secrets());
        let ran = args.clone();
        let mut record = Unrecorded {
            kernel: self,
            call,
            entry: Some(Entry::new(Action::Spawn, &redacted.line)),
            planted: Default::default(),
            journaled: purpose == Purpose::Act,
        };
        let planted = record.planted.clone();
        let entry = record.entry.as_mut().expect("recorded only below");
        let result = self.run_checked(purpose, call, program, args, &redacted, opts, on_line, entry, planted).await;
        if let Ok(output) = &result {
            profile.observe(program, &ran, output);
        }
        let mut entry = record.entry.take().expect("recorded only here");
        entry.planted = std::mem::take(&mut *record.planted.lock().unwrap_or_else(|e| e.into_inner()));
        let output = match &result {
            Ok(output) => Some(output),
            Err(KernelError::Timeout { output, .. }) => Some(output.as_ref()),
            Err(KernelError::ProtectedCreated { output: Some(output), .. }) => Some(output.as_ref()),
            Err(_) => None,
        };
        if let Some(output) = output {
            entry.exit_code = output.code;
            entry.signal = output.signal;
            entry.duration_ms = Some(output.duration_ms);
            if output.stragglers > 0 {
                entry.stragglers_killed = Some(output.stragglers);
                entry.stragglers = output.straggler_names.clone();
            }
        }
        if purpose == Purpose::Act {
            self.record(call, entry, &result);
        }
        result
    }

    #[allow(clippy::too_many_arguments)]
    async fn run_checked(
        &self,
        purpose: Purpose,
        call: &Call,
        program: &str,
        args: Vec<String>,
        redacted: &Redacted,
        opts: RunOptions,
        on_line: &mut OnLine<'_>,
        entry: &mut Entry,
        planted: planted::Found,
    ) -> Result<SpawnOutput, KernelError> {
        let command = redacted.line.clone();
        let profile = self.spawn.profile.as_ref();
        let Some(found) = profile.locate(program) else {
            return Err(KernelError::ProgramNotAllowed { program: program.to_string(), known: profile.known() });
        };
        let subject = Subject::Spawn { program, args: &args };
        // What no approval could lift is refused first, whatever this machine has installed.
        if let Err(refusal) = self.gate.bounds(call, &subject, &command) {
            entry.decided_by = Some(refusal.by.clone());
            return Err(refusal.into_spawn_error(command, WHY_ASK.to_string()));
        }
        let located = match found {
            Ok(located) => located,
            Err(missing) => {
                return Err(KernelError::ToolchainNotFound {
                    program: program.to_string(),
                    tried: missing.tried,
                    fix: missing.fix,
                })
            }
        };
        let cwd = self.scope.resolve(opts.cwd.as_deref().unwrap_or("."))?;
        let plan = confine::decide(self.spawn.confine, confine::level());
        entry.confinement = Some(plan.journal());
        match &plan {
            confine::Plan::Refuse(why) => {
                return Err(KernelError::Unconfinable { program: program.to_string(), why: why.clone() })
            }
            confine::Plan::Unconfined(why) if self.spawn.confine == confine::ConfineMode::Auto => {
                confine::warn_unconfined_once(why)
            }
            _ => {}
        }
        profile.before_decide(Spawn { kernel: self, call, program, args: &args }).await?;
        let (decision, shown_writes) =
            self.authorize_spawn(call, program, &args, redacted, (&cwd, &located, &plan, &opts), entry)?;
        if !call.take_spawn() {
            return Err(KernelError::SpawnBudget);
        }
        profile.before_spawn(Spawn { kernel: self, call, program, args: &args }, &decision).await?;
        let (default, cap) = profile.deadline(program, &args);
        let timeout = match opts.timeout_ms.map(Duration::from_millis) {
            Some(asked) if asked > cap => {
                return Err(KernelError::invalid(format!(
                    "timeout_ms {} is over the cap of {} ms for {}",
                    asked.as_millis(),
                    cap.as_millis(),
                    program
                )))
            }
            Some(asked) => asked,
            None => default,
        };
        let mut env = env::child_env(std::env::vars(), &opts.env, &self.spawn.pass_env, &profile.passed_env())?;
        env.retain(|(name, _)| !profile.withholds_env(name));
        // A temp directory of its own, which rein removes after it (the shared ones are never
        // granted: others' sockets and files live there).
        let private_tmp = tempfile::Builder::new()
            .prefix("rein-spawn-")
            .tempdir()
            .map_err(|e| KernelError::io("create a temp directory for", command.clone(), e))?;
        env.retain(|(name, _)| name != "TMPDIR");
        env.push(("TMPDIR".to_string(), private_tmp.path().display().to_string()));
        profile.check(program, &args, &env)?;
        // Its output also loses the secret-looking variables a person passed it (pass_env).
        let secret_env = env.iter().filter(|(name, _)| env::looks_secret(name)).map(|(_, value)| value.clone());
        let redacted = &redacted.clone().with_output_secrets(secret_env);
        profile.adjust_env(program, &located, &mut env, self.scope.workspace());
        // Held until the program and all it started have ended; so is one its profile says
        // holds a secret where other processes could read it.
        let _turn = turns::take(redacted.holds_secret() || profile.runs_alone(program)).await;
        // macOS: the program runs under sandbox-exec with this profile.
        let mut seatbelt_profile = None;
        // Windows: the program runs with a write-restricted token of this capability SID.
        let mut restricted = None;
        let (confinement, oversight) = match plan {
            confine::Plan::Landlock { .. } => {
                let grants = self.confinement_profile(program, &located, &args, &env, entry, &shown_writes);
                let mut grants = match purpose {
                    Purpose::Act => grants,
                    Purpose::Look => grants.looking(self.scope.workspace(), self.scope.home(), &env),
                };
                let cannot = |e: confine::ConfineError| {
                    KernelError::io("confine", command.clone(), std::io::Error::other(e.to_string()))
                };
                confine::make_dirs(&grants).map_err(cannot)?;
                let oversight =
                    planted::oversee(&mut grants, private_tmp.path(), self.scope.workspace(), planted.clone());
                let prepared = confine::prepare(&grants).map_err(cannot)?;
                (Some(confine::before_exec(prepared)), oversight)
            }
            confine::Plan::Seatbelt => {
                let grants = self.confinement_profile(program, &located, &args, &env, entry, &shown_writes);
                let grants = match purpose {
                    Purpose::Act => grants,
                    Purpose::Look => grants.looking(self.scope.workspace(), self.scope.home(), &env),
                };
                confine::make_dirs(&grants)
                    .map_err(|e| KernelError::io("confine", command.clone(), std::io::Error::other(e.to_string())))?;
                seatbelt_profile =
                    Some(seatbelt::profile(&seatbelt::as_resolved(grants), &seatbelt::protected_names()));
                (None, spawn::Oversight::default())
            }
            confine::Plan::RestrictedToken => {
                // Windows programs take their temp folder from TEMP and TMP: the private one,
                // the only temp folder its entries let it write.
                env.retain(|(name, _)| !name.eq_ignore_ascii_case("TEMP") && !name.eq_ignore_ascii_case("TMP"));
                for name in ["TEMP", "TMP"] {
                    env.push((name.to_string(), private_tmp.path().display().to_string()));
                }
                let grants = self.confinement_profile(program, &located, &args, &env, entry, &shown_writes);
                let grants = match purpose {
                    Purpose::Act => grants,
                    Purpose::Look => grants.looking(self.scope.workspace(), self.scope.home(), &env),
                };
                let cannot = |e: std::io::Error| KernelError::io("confine", command.clone(), e);
                confine::make_dirs(&grants).map_err(|e| cannot(std::io::Error::other(e.to_string())))?;
                let sid = windows_acl::new_capability_sid().map_err(cannot)?;
                let records = windows_acl::records_in(self.scope.home());
                let entries = windows_acl::os_entries();
                let granted = windows_acl::grant(entries, &records, &grants, &sid, std::process::id())
                    .map_err(|e| cannot(std::io::Error::other(e.to_string())))?;
                restricted = Some(sid);
                // Removed once the tree has ended, or with the Oversight if the spawn fails first.
                let held = windows_acl::Held::new(granted, entries);
                (None, spawn::Oversight { stop: None, after_end: Some(Box::new(move || drop(held))) })
            }
            confine::Plan::Unconfined(_) if self.spawn.confine != confine::ConfineMode::Off => {
                let sockets = profile.sockets(program);
                (confine::harden_only(&sockets).map(confine::before_exec), spawn::Oversight::default())
            }
            _ => (None, spawn::Oversight::default()),
        };
        let spawn = Spawn { kernel: self, call, program, args: &args };
        let args = profile.hand_over(&spawn, args.clone(), opts.signing.as_deref(), private_tmp.path())?;
        let argv = profile.argv(program, &located, args, private_tmp.path(), &command)?;
        // The journal and the events show the command as it runs.
        let shown = profile.shown_args(program, redacted.args.clone());
        let command = command_line(program, &shown);
        entry.target = command.clone();
        let (program_path, argv) = match seatbelt_profile {
            Some(profile) => (PathBuf::from(seatbelt::SANDBOX_EXEC), profile.args(&located.path, argv)),
            None => (located.path, argv),
        };
        let request = SpawnRequest {
            program: program_path,
            args: argv,
            cwd: cwd.real,
            env,
            stdin: opts.stdin,
            timeout,
            output_limit: OUTPUT_LIMIT,
            restricted,
        };
        call.emit(|| EventKind::ProgramSpawned { program: program.to_string(), argv: shown, command: command.clone() });
        let started = std::time::Instant::now();
        let mut scrubbed = |stream: Stream, line: &str| on_line(stream, &redacted.scrub(line));
        let ran = spawn::run_confined(&request, confinement, oversight, &mut scrubbed).await;
        drop(private_tmp);
        let exited = |code, signal, timed_out, stopped, duration_ms| EventKind::ProgramExited {
            program: program.to_string(),
            code,
            signal,
            timed_out,
            stopped,
            duration_ms,
        };
        // The sweep ran as the tree ended (spawn::Oversight): what it removed fails the call.
        let made = planted.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if !made.is_empty() {
            let output = ran.ok().map(|mut output| {
                output.stdout = redacted.scrub(&output.stdout);
                output.stderr = redacted.scrub(&output.stderr);
                Box::new(output)
            });
            let elapsed = started.elapsed().as_millis() as u64;
            let code = output.as_ref().and_then(|o| o.code);
            call.emit(|| exited(code, None, false, Some("it made a git repository".to_string()), elapsed));
            return Err(KernelError::ProtectedCreated {
                command,
                scripts: profile.build_scripts(),
                planted: made,
                output,
            });
        }
        let mut output = match ran {
            Ok(output) => {
                call.emit(|| exited(output.code, output.signal, output.timed_out, None, output.duration_ms));
                output
            }
            Err(e) => {
                let elapsed = started.elapsed().as_millis() as u64;
                call.emit(|| exited(None, None, false, Some(redacted.scrub(&e.to_string())), elapsed));
                return Err(match e {
                    spawn::SpawnError::Stopped(reason) => {
                        KernelError::Stopped { command: command.clone(), reason: reason.0 }
                    }
                    other => KernelError::io("run", command.clone(), std::io::Error::other(other.to_string())),
                });
            }
        };
        output.stdout = redacted.scrub(&output.stdout);
        output.stderr = redacted.scrub(&output.stderr);
        if output.timed_out {
            let timeout_ms = timeout.as_millis() as u64;
            return Err(KernelError::Timeout {
                command,
                timeout_ms,
                cap_ms: cap.as_millis() as u64,
                output: Box::new(output),
            });
        }
        Ok(output)
    }

    /// What an approved command line may write outside the workspace (what its profile would
    /// grant; the child's HOME is rein's, `env::child_env`).
    fn approved_outside_writes(&self, args: &[String]) -> Vec<PathBuf> {
        let workspace = self.scope.workspace();
        let user_home = std::env::var_os("HOME").map(PathBuf::from).filter(|h| h.is_absolute());
        let guarded = grants::guarded(workspace, self.scope.home(), user_home.as_deref());
        grants::outside_grants(&grants::outside_paths(args, workspace), self.scope.home(), &guarded)
    }

    /// Asks the gate for the policy's decision on running `program args` in `cwd` (path
    /// arguments are judged from `cwd`), noting in `entry` who decided; the decision, once
    /// settled, with the outside places the question said a yes lets it write. A question says
    /// what a yes means: the program as found, the directory, the outside paths, what it may write.
    fn authorize_spawn(
        &self,
        call: &Call,
        program: &str,
        args: &[String],
        redacted: &Redacted,
        (cwd, located, plan, opts): (&super::ResolvedPath, &Found, &confine::Plan, &RunOptions),
        entry: &mut Entry,
    ) -> Result<(Decision, Vec<PathBuf>), KernelError> {
        if let Some(bound) = call.bound() {
            // What the tool declared it does not do, held by what the command's shape does.
            if !bound.restriction.allows(self.spawn.profile.effect(program, args)) {
                entry.decided_by = Some(DecidedBy::Annotation(bound.tool.clone()));
                return Err(KernelError::Annotated {
                    tool: bound.tool.clone(),
                    restriction: bound.restriction,
                    what: format!("run `{}`", redacted.line),
                });
            }
        }
        // The record names the command as the question shows it and as it would run.
        entry.target = self.as_it_runs(program, redacted);
        let outside = std::cell::RefCell::new(Vec::new());
        let classify = |p: &str| {
            let joined = if Path::new(p).is_absolute() { PathBuf::from(p) } else { cwd.real.join(p) };
            let resolved = self.scope.resolve(&joined.display().to_string());
            let class = resolved.as_ref().map(|r| r.class).unwrap_or(PathClass::Outside);
            if class != PathClass::Workspace {
                let real = resolved.map(|r| r.real).unwrap_or(joined);
                outside.borrow_mut().push((redacted.scrub(p), real));
            }
            class
        };
        let profile = self.spawn.profile.as_ref();
        let workspace_text = |rel: &str| self.small_workspace_text(rel).ok();
        let decided = profile.decide(program, args, cwd.class, &classify, &workspace_text);
        let decision = match profile.admit(&Spawn { kernel: self, call, program, args }, &decided) {
            Some(why) => Decision::Deny(why),
            None => decided,
        };
        let shown_writes = self.approved_outside_writes(args);
        let facts = question::Facts {
            located,
            cwd: &cwd.real,
            outside: outside.into_inner(),
            writes: shown_writes.clone(),
            plan,
            env: opts.env.iter().map(|(name, value)| redacted.scrub(&format!("{name}={value}"))).collect(),
            input: opts.stdin.as_deref().map(|input| redacted.scrub(&String::from_utf8_lossy(input))),
        };
        let why = self.spawn.profile.why_asked(program, args, !facts.outside.is_empty());
        let request = ApprovalRequest {
            what: format!("run {}", self.as_it_runs(program, redacted)),
            why: why.clone(),
            context: question::context(&facts),
            who: Asked::Anyone,
            rule: Some(Rule::for_command(program, redacted.rule_args())),
        };
        // One yes covers one launch, its fallback included: the same action in the form an
        // older device understands is not asked about again (harmony::fallbacks).
        if decision == Decision::Ask {
            if let Some(by) = call.take_covered(program, args) {
                entry.decided_by = Some(by);
                return Ok((decision, shown_writes));
            }
        }
        let subject = Subject::Spawn { program, args };
        match self.gate.settle(call, decision.clone(), &subject, request) {
            Ok(by) => {
                let answered = matches!(by, DecidedBy::Approver(_));
                if answered && decision == Decision::Ask {
                    if let Some(fallback) = self.spawn.profile.fallback_of(program, args) {
                        call.cover_fallback(program, fallback, by.clone());
                    }
                }
                entry.decided_by = Some(by);
                // While the person read, a link on the way may have been pointed elsewhere: their
                // yes is for the places they were shown, and the profile grants only those.
                let now = if answered { self.approved_outside_writes(args) } else { shown_writes.clone() };
                if now != shown_writes {
                    let shown = |paths: &[PathBuf]| paths.iter().map(crate::visible::path).collect();
                    return Err(KernelError::ChangedSinceShown {
                        command: redacted.line.clone(),
                        shown: shown(&shown_writes),
                        now: shown(&now),
                    });
                }
                Ok((decision, shown_writes))
            }
            Err(refusal) => {
                entry.decided_by = Some(refusal.by.clone());
                Err(refusal.into_spawn_error(self.as_it_runs(program, redacted), why))
            }
        }
    }
}

impl Kernel {
    /// The command as it runs, quoted as a shell reads it back (`-S '2026-12-06 07:59:24'`),
    /// with what its profile adds (`ToolchainProfile::shown_args`): what the question shows,
    /// the journal records and the report prints.
    fn as_it_runs(&self, program: &str, redacted: &Redacted) -> String {
        command_line(program, &self.spawn.profile.shown_args(program, redacted.args.clone()))
    }
}

/// A spawn's journal entry until it is recorded: when the call is dropped half-way (cancelled),
/// the entry is recorded as it drops — after the spawn's process tree, which the spawn's future
/// held and has killed and swept by then — so the journal shows every program that ran.
struct Unrecorded<'a> {
    kernel: &'a Kernel,
    call: &'a Call,
    entry: Option<Entry>,
    planted: planted::Found,
    /// Whether the spawn belongs in the journal (a look, `Purpose::Look`, never does).
    journaled: bool,
}

impl Drop for Unrecorded<'_> {
    fn drop(&mut self) {
        let Some(mut entry) = self.entry.take().filter(|_| self.journaled) else { return };
        entry.planted = std::mem::take(&mut *self.planted.lock().unwrap_or_else(|e| e.into_inner()));
        let cancelled: Result<(), KernelError> =
            Err(KernelError::Stopped { command: entry.target.clone(), reason: "the call was cancelled".to_string() });
        self.kernel.record(self.call, entry, &cancelled);
    }
}
