//! Running toolchain programs. `Kernel::run` puts a program through every check — known
//! program, found on this machine, working directory in the workspace, the gate (policy,
//! project denies, acting packs' permissions, approvals), the call's spawn budget, the
//! environment allow-list, a bounded deadline — then the process runner.
//!
//! - `toolchain`: where hvigorw, hdc, ohpm and hap-sign-tool are
//! - `discovery`: the places each OS keeps them (pure, table-tested for all three)
//! - `spawn`: the runner (own process group, deadline, bounded output, line streaming)
//! - `capture`: head-and-tail output capture
//! - `confine`: Landlock confinement of each program (its profile: `policy::confinement`);
//!   `carve` grants around a path that must get less than its directory, walking folders by
//!   handle (`handles`)
//! - `privileges`: the capabilities a program never inherits (Linux)
//! - `syscalls`: the system calls a program may not make (unix sockets, io_uring; Linux)
//! - `env`: the environment a program sees
//! - `hdc_server`: hdc never starts a server; its server must answer first
//! - `java_args`: java's command line in an argument file, out of the process table
//! - `keystore_pins`: signing passwords go only with the keystore bytes they first went with;
//!   java gets a private copy of them
//! - `planted`: the `.git` a confined program makes where it may write, stopped and removed
//! - `profile`: what one spawn may reach (the places rein knows, for `policy::confinement`)
//! - `turns`: a program whose command line holds a secret runs alone
//! - `question`: what a person is told about a program before their yes

pub mod capture;
#[cfg(target_os = "linux")]
mod carve;
pub mod confine;
pub mod env;
#[cfg(target_os = "linux")]
mod handles;
pub mod planted;
#[cfg(target_os = "linux")]
mod privileges;
mod profile;
pub mod question;
pub mod spawn;
#[cfg(target_os = "linux")]
pub mod syscalls;
mod turns;

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::secrets::redact::Redacted;
use crate::harmony::signing;
pub use spawn::OnLine;
use spawn::{SpawnOutput, SpawnRequest, Stream};

use super::journal::{Action, Entry};
use super::policy::rules::command_line;
use super::policy::{controls, ApprovalRequest, Asked, DecidedBy, Decision, Rule, Subject};
use super::{Call, EventKind, Kernel, KernelError, PathClass};
use crate::harmony::confinement;
use crate::harmony::grammar::hdc::device_of;
use crate::harmony::hdc_servers::{normalize, HdcServers};
use crate::harmony::programs::{decide_spawn, Program};
use crate::harmony::project::ProjectFacts;
use crate::harmony::toolchain;
use crate::harmony::{deveco_env, hdc_server, java_args, keystore_pins};

/// Output kept per stream: the first and last half MiB.
const OUTPUT_LIMIT: usize = 1024 * 1024;

/// Why the policy asks about a program.
const WHY_ASK: &str = "it changes a device, reaches the network or touches files outside the workspace";

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
#[derive(Debug, Clone, Default)]
pub struct SpawnSettings {
    pub toolchain: toolchain::Toolchain,
    pub pass_env: Vec<String>,
    pub signing: signing::SigningSecrets,
    pub confine: confine::ConfineMode,
    /// More TCP ports a person lets a program connect to: program name → ports.
    pub connect_ports: std::collections::BTreeMap<String, Vec<u16>>,
    /// Directories a person lets every confined program write.
    pub writable: Vec<std::path::PathBuf>,
    /// The hdc servers that are the person's own (the local one and home config's labs).
    pub servers: HdcServers,
    /// How long a call waits for a device another run holds (default `lease::DEFAULT_WAIT`).
    pub lease_wait: Option<Duration>,
    /// A person lets hvigorw read DevEco's signing material (`~/.ohos/config`).
    pub hvigor_reads_signing_material: bool,
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

/// The default deadline and the most a call may ask for.
pub fn deadline_of(program: &Program, args: &[String]) -> (Duration, Duration) {
    let secs = |default: u64, cap: u64| (Duration::from_secs(default), Duration::from_secs(cap));
    match program {
        Program::Hvigorw => secs(900, 3600),
        Program::Hdc if args.iter().any(|a| a == "install") => secs(120, 600),
        // A device's whole test run (its own `-w` ends it sooner).
        Program::Hdc if crate::harmony::grammar::hdc::runs_tests(args) => secs(600, 3600),
        _ => secs(60, 600),
    }
}

impl Kernel {
    /// The hdc servers that are the person's own (`policy::hdc_servers`).
    pub fn hdc_servers(&self) -> &HdcServers {
        &self.spawn.servers
    }

    /// What a script may know about a signing config's passwords: which variables, whether they
    /// are set and usable — never their values.
    pub fn signing_status(&self, config: &str) -> signing::SigningStatus {
        let env = |name: &str| std::env::var(name).ok();
        self.spawn.signing.status(config, &env, self.scope.workspace(), &|| self.build_profile_text())
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
        if let Some(found) = controls::control_in(&Program::parse(program), &args) {
            let entry = Entry::new(Action::Spawn, &crate::visible::line(&Redacted::new(program, &args).line));
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
        let env = |name: &str| std::env::var(name).ok();
        let workspace = self.scope.workspace();
        let cwd = self.scope.resolve(opts.cwd.as_deref().unwrap_or(".")).map(|c| c.real).unwrap_or_default();
        let resolve = |p: &str| {
            let joined = if Path::new(p).is_absolute() { PathBuf::from(p) } else { cwd.join(p) };
            self.scope.resolve(&joined.display().to_string()).ok().map(|r| r.real)
        };
        let profile = || self.build_profile_text();
        let place = signing::Place { workspace, profile: &profile, resolve: &resolve };
        let args = match self.spawn.signing.prepare(program, args.clone(), opts.signing.as_deref(), &env, place) {
            Ok(args) => args,
            Err(refused) => {
                let entry = Entry::new(Action::Spawn, &Redacted::new(program, &args).line);
                let result = Err(KernelError::Signing(refused));
                if purpose == Purpose::Act {
                    self.record(call, entry, &result);
                }
                return result;
            }
        };
        let redacted = Redacted::new(program, &args).with_secrets(call.secrets());
        let mut record = Unrecorded {
            kernel: self,
            call,
            entry: Some(Entry::new(Action::Spawn, &redacted.line)),
            planted: Default::default(),
            journaled: purpose == Purpose::Act,
        };
        let planted = record.planted.clone();
        let entry = record.entry.as_mut().expect("recorded only below");
        let result = self
            .run_checked(purpose, call, Program::parse(program), args, &redacted, opts, on_line, entry, planted)
            .await;
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
        program: Program,
        args: Vec<String>,
        redacted: &Redacted,
        opts: RunOptions,
        on_line: &mut OnLine<'_>,
        entry: &mut Entry,
        planted: planted::Found,
    ) -> Result<SpawnOutput, KernelError> {
        let command = redacted.line.clone();
        let Some(found) = self.spawn.toolchain.get(&program) else {
            return Err(KernelError::ProgramNotAllowed { program: program.name().to_string() });
        };
        let subject = Subject::Spawn { program: program.name(), args: &args };
        // What no approval could lift is refused first, whatever this machine has installed.
        if let Err(refusal) = self.gate.bounds(call, &subject, &command) {
            entry.decided_by = Some(refusal.by.clone());
            return Err(refusal.into_spawn_error(command, WHY_ASK.to_string()));
        }
        let located = match found {
            Ok(located) => located.clone(),
            Err(missing) => {
                return Err(KernelError::ToolchainNotFound {
                    program: program.name().to_string(),
                    tried: missing.tried.clone(),
                    fix: missing.fix.clone(),
                })
            }
        };
        let cwd = self.scope.resolve(opts.cwd.as_deref().unwrap_or("."))?;
        let plan = confine::decide(self.spawn.confine, confine::level());
        entry.confinement = Some(plan.journal());
        match &plan {
            confine::Plan::Refuse(why) => {
                return Err(KernelError::Unconfinable { program: program.name().to_string(), why: why.clone() })
            }
            confine::Plan::Unconfined(why) if self.spawn.confine == confine::ConfineMode::Auto => {
                confine::warn_unconfined_once(why)
            }
            _ => {}
        }
        let (decision, shown_writes) =
            self.authorize_spawn(call, &program, &args, redacted, (&cwd, &located, &plan, &opts), entry)?;
        if !call.take_spawn() {
            return Err(KernelError::SpawnBudget);
        }
        if program == Program::Hdc && (decision != Decision::Allow || crate::harmony::grammar::hdc::runs_tests(&args)) {
            self.lease_device(call, &args).await?;
        }
        let (default, cap) = deadline_of(&program, &args);
        let timeout = match opts.timeout_ms.map(Duration::from_millis) {
            Some(asked) if asked > cap => {
                return Err(KernelError::invalid(format!(
                    "timeout_ms {} is over the cap of {} ms for {}",
                    asked.as_millis(),
                    cap.as_millis(),
                    program.name()
                )))
            }
            Some(asked) => asked,
            None => default,
        };
        let mut env = env::child_env(std::env::vars(), &opts.env, &self.spawn.pass_env)?;
        env.retain(|(name, _)| !self.spawn.signing.withholds(name));
        // A temp directory of its own, which rein removes after it (the shared ones are never
        // granted: others' sockets and files live there).
        let private_tmp = tempfile::Builder::new()
            .prefix("rein-spawn-")
            .tempdir()
            .map_err(|e| KernelError::io("create a temp directory for", command.clone(), e))?;
        env.retain(|(name, _)| name != "TMPDIR");
        env.push(("TMPDIR".to_string(), private_tmp.path().display().to_string()));
        if program == Program::Hdc {
            hdc_server::check(&args, &env)?;
        }
        // Its output also loses the secret-looking variables a person passed it (pass_env).
        let secret_env = env.iter().filter(|(name, _)| env::looks_secret(name)).map(|(_, value)| value.clone());
        let redacted = &redacted.clone().with_output_secrets(secret_env);
        if program == Program::Hvigorw {
            let from_deveco = deveco_env::for_hvigor(&located.path, located.script.as_deref(), &env);
            env.extend(from_deveco);
            if let Some(home) = profile::hvigor_home(&env, self.scope.workspace()) {
                env.retain(|(name, _)| name != "HVIGOR_USER_HOME");
                env.push(("HVIGOR_USER_HOME".to_string(), home.display().to_string()));
            }
        }
        // Held until the program and all it started have ended. An hvigorw that may read DevEco's
        // signing material signs by running hap-sign-tool with the passwords on java's command
        // line, which /proc shows every process: it runs alone too.
        let signs = program == Program::Hvigorw && self.spawn.hvigor_reads_signing_material;
        let _turn = turns::take(redacted.holds_secret() || signs).await;
        let (confinement, oversight) = match plan {
            confine::Plan::Landlock { .. } => {
                let profile = self.confinement_profile(&program, &located, &args, &env, entry, &shown_writes);
                let mut profile = match purpose {
                    Purpose::Act => profile,
                    Purpose::Look => profile.looking(self.scope.workspace(), self.scope.home(), &env),
                };
                let cannot = |e: confine::ConfineError| {
                    KernelError::io("confine", command.clone(), std::io::Error::other(e.to_string()))
                };
                confine::make_dirs(&profile).map_err(cannot)?;
                let oversight =
                    planted::oversee(&mut profile, private_tmp.path(), self.scope.workspace(), planted.clone());
                let prepared = confine::prepare(&profile).map_err(cannot)?;
                (Some(confine::before_exec(prepared)), oversight)
            }
            confine::Plan::Unconfined(_) if self.spawn.confine != confine::ConfineMode::Off => {
                (confine::harden_only().map(confine::before_exec), spawn::Oversight::default())
            }
            _ => (None, spawn::Oversight::default()),
        };
        // The keystore the passwords go with: the bytes they first went with, as a private copy
        // (`keystore_pins`).
        let args = match opts.signing.as_deref() {
            Some(config) => {
                let (home, workspace) = (self.scope.home(), self.scope.workspace());
                keystore_pins::hand_over(home, workspace, config, &args, private_tmp.path())
                    .map_err(|refused| KernelError::Signing(refused.into()))?
            }
            None => args,
        };
        let argv = match (&located.jar, &located.script) {
            (Some(jar), _) => {
                let file = java_args::write(private_tmp.path(), jar, &args)
                    .map_err(|e| KernelError::io("write java's argument file for", command.clone(), e))?;
                vec![format!("@{}", file.display())]
            }
            // DevEco's hvigorw.js, run by its bundled node (no shell, no cmd.exe on Windows).
            (None, Some(script)) => std::iter::once(script.display().to_string()).chain(args.iter().cloned()).collect(),
            (None, None) if program == Program::Hdc => hdc_server::argv(args),
            (None, None) => args,
        };
        // The journal and the events show the command as it runs: hdc with the `-p` put first.
        let shown = match program {
            Program::Hdc => hdc_server::argv(redacted.args.clone()),
            _ => redacted.args.clone(),
        };
        let command =
            std::iter::once(program.name()).chain(shown.iter().map(String::as_str)).collect::<Vec<_>>().join(" ");
        entry.target = command.clone();
        let request = SpawnRequest {
            program: located.path,
            args: argv,
            cwd: cwd.real,
            env,
            stdin: opts.stdin,
            timeout,
            output_limit: OUTPUT_LIMIT,
        };
        call.emit(|| EventKind::ProgramSpawned {
            program: program.name().to_string(),
            argv: shown,
            command: command.clone(),
        });
        let started = std::time::Instant::now();
        let mut scrubbed = |stream: Stream, line: &str| on_line(stream, &redacted.scrub(line));
        let ran = spawn::run_confined(&request, confinement, oversight, &mut scrubbed).await;
        drop(private_tmp);
        let exited = |code, signal, timed_out, stopped, duration_ms| EventKind::ProgramExited {
            program: program.name().to_string(),
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
            return Err(KernelError::ProtectedCreated { command, planted: made, output });
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
        let guarded = confinement::guarded(workspace, self.scope.home(), user_home.as_deref());
        confinement::outside_grants(&confinement::outside_paths(args, workspace), self.scope.home(), &guarded)
    }

    /// Holds the device an hdc command changes for the rest of the call (see `lease`).
    async fn lease_device(&self, call: &Call, args: &[String]) -> Result<(), KernelError> {
        let Some(device) = device_of(args) else { return Ok(()) };
        let local = format!("127.0.0.1:{}", self.spawn.servers.local_port());
        let server = device.server.as_deref().map(normalize).unwrap_or(local);
        let wait = self.spawn.lease_wait.unwrap_or(crate::harmony::lease::DEFAULT_WAIT);
        let home = self.scope.home();
        crate::harmony::lease::take(call, home, self.scope.workspace(), &server, &device, wait).await
    }

    /// Asks the gate for the policy's decision on running `program args` in `cwd` (path
    /// arguments are judged from `cwd`), noting in `entry` who decided; the decision, once
    /// settled, with the outside places the question said a yes lets it write. A question says
    /// what a yes means: the program as found, the directory, the outside paths, what it may write.
    fn authorize_spawn(
        &self,
        call: &Call,
        program: &Program,
        args: &[String],
        redacted: &Redacted,
        (cwd, located, plan, opts): (&super::ResolvedPath, &toolchain::Located, &confine::Plan, &RunOptions),
        entry: &mut Entry,
    ) -> Result<(Decision, Vec<PathBuf>), KernelError> {
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
        let project = || {
            let app = self.project_file_text("AppScope/app.json5").ok();
            ProjectFacts::from_texts(app.as_deref(), self.build_profile_text().ok().as_deref())
        };
        let decision = match decide_spawn(program, args, cwd.class, &classify, &self.spawn.servers, &project) {
            // Into the transit folder only a name this call reserved, received once (files::received).
            allowed @ (Decision::Allow | Decision::Ask) if *program == Program::Hdc => {
                match self.admit_recv(call, args) {
                    Some(Err(why)) => Decision::Deny(why),
                    _ => allowed,
                }
            }
            other => other,
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
        let request = ApprovalRequest {
            what: command_line(program.name(), &redacted.args),
            why: WHY_ASK.to_string(),
            context: question::context(&facts),
            who: Asked::Anyone,
            rule: Some(Rule::for_command(program.name(), redacted.rule_args())),
        };
        let subject = Subject::Spawn { program: program.name(), args };
        match self.gate.settle(call, decision.clone(), &subject, request) {
            Ok(by) => {
                let answered = matches!(by, DecidedBy::Approver(_));
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
                Err(refusal.into_spawn_error(redacted.line.clone(), WHY_ASK.to_string()))
            }
        }
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
