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
//!   `carve` grants around a path that must get less than its directory
//! - `privileges`: the capabilities a program never inherits (Linux)
//! - `syscalls`: the system calls a program may not make (unix sockets, io_uring; Linux)
//! - `env`: the environment a program sees
//! - `hdc_server`: hdc never starts a server; its server must answer first
//! - `java_args`: java's command line in an argument file, out of the process table
//! - `profile`: what one spawn may reach (the places rein knows, for `policy::confinement`)

pub mod capture;
#[cfg(target_os = "linux")]
mod carve;
pub mod confine;
pub mod discovery;
pub mod env;
pub mod hdc_server;
mod java_args;
#[cfg(target_os = "linux")]
mod privileges;
mod profile;
pub mod spawn;
#[cfg(target_os = "linux")]
pub mod syscalls;
pub mod toolchain;

use std::path::Path;
use std::time::Duration;

use super::secrets::redact::Redacted;
use super::secrets::signing;
pub use spawn::OnLine;
use spawn::{SpawnOutput, SpawnRequest, Stream};

use super::journal::{Action, Entry};
use super::policy::{decide_spawn, ApprovalRequest, Asked, Program, Rule, Subject};
use super::{Call, EventKind, Kernel, KernelError, PathClass};

/// Output kept per stream: the first and last half MiB.
const OUTPUT_LIMIT: usize = 1024 * 1024;

/// Why the policy asks about a program.
const WHY_ASK: &str = "it changes a device, reaches the network or touches files outside the workspace";

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
        _ => secs(60, 600),
    }
}

impl Kernel {
    /// What a script may know about a signing config's passwords: which variables, whether they
    /// are set and usable — never their values.
    pub fn signing_status(&self, config: &str) -> signing::SigningStatus {
        self.spawn.signing.status(config, &|name: &str| std::env::var(name).ok())
    }

    pub async fn run(
        &self,
        call: &Call,
        program: &str,
        args: Vec<String>,
        opts: RunOptions,
        on_line: &mut OnLine<'_>,
    ) -> Result<SpawnOutput, KernelError> {
        let env = |name: &str| std::env::var(name).ok();
        let args = match self.spawn.signing.prepare(program, args.clone(), opts.signing.as_deref(), &env) {
            Ok(args) => args,
            Err(refused) => {
                let entry = Entry::new(Action::Spawn, &Redacted::new(program, &args).line);
                let result = Err(KernelError::Signing(refused));
                self.record(call, entry, &result);
                return result;
            }
        };
        let redacted = Redacted::new(program, &args).with_secrets(call.secrets());
        let mut entry = Entry::new(Action::Spawn, &redacted.line);
        let result = self.run_checked(call, Program::parse(program), args, &redacted, opts, on_line, &mut entry).await;
        let output = match &result {
            Ok(output) => Some(output),
            Err(KernelError::Timeout { output, .. }) => Some(output.as_ref()),
            Err(_) => None,
        };
        if let Some(output) = output {
            entry.exit_code = output.code;
            entry.duration_ms = Some(output.duration_ms);
            if output.stragglers > 0 {
                entry.stragglers_killed = Some(output.stragglers);
                entry.stragglers = output.straggler_names.clone();
            }
        }
        self.record(call, entry, &result);
        result
    }

    #[allow(clippy::too_many_arguments)]
    async fn run_checked(
        &self,
        call: &Call,
        program: Program,
        args: Vec<String>,
        redacted: &Redacted,
        opts: RunOptions,
        on_line: &mut OnLine<'_>,
        entry: &mut Entry,
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
        self.authorize_spawn(call, &program, &args, redacted, &cwd, entry)?;
        if !call.take_spawn() {
            return Err(KernelError::SpawnBudget);
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
        if program == Program::Hvigorw {
            if let Some(home) = profile::hvigor_home(&env, self.scope.workspace()) {
                env.retain(|(name, _)| name != "HVIGOR_USER_HOME");
                env.push(("HVIGOR_USER_HOME".to_string(), home.display().to_string()));
            }
        }
        let confinement = match plan {
            confine::Plan::Landlock { .. } => {
                let profile = self.confinement_profile(&program, &located, &args, &env, entry);
                let prepared = confine::prepare(&profile)
                    .map_err(|e| KernelError::io("confine", command.clone(), std::io::Error::other(e.to_string())))?;
                Some(confine::before_exec(prepared))
            }
            confine::Plan::Unconfined(_) if self.spawn.confine != confine::ConfineMode::Off => {
                confine::harden_only().map(confine::before_exec)
            }
            _ => None,
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
            argv: redacted.args.clone(),
            command: command.clone(),
        });
        let started = std::time::Instant::now();
        let mut scrubbed = |stream: Stream, line: &str| on_line(stream, &redacted.scrub(line));
        let ran = spawn::run_confined(&request, confinement, &mut scrubbed).await;
        drop(private_tmp);
        let exited = |code, signal, timed_out, stopped, duration_ms| EventKind::ProgramExited {
            program: program.name().to_string(),
            code,
            signal,
            timed_out,
            stopped,
            duration_ms,
        };
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

    /// Asks the gate for the policy's decision on running `program args` in `cwd` (path
    /// arguments are judged from `cwd`), noting in `entry` who decided.
    fn authorize_spawn(
        &self,
        call: &Call,
        program: &Program,
        args: &[String],
        redacted: &Redacted,
        cwd: &super::ResolvedPath,
        entry: &mut Entry,
    ) -> Result<(), KernelError> {
        let classify = |p: &str| {
            let joined =
                if Path::new(p).is_absolute() { p.to_string() } else { cwd.real.join(p).display().to_string() };
            self.scope.resolve(&joined).map(|r| r.class).unwrap_or(PathClass::Outside)
        };
        let decision = decide_spawn(program, args, cwd.class, &classify);
        let request = ApprovalRequest {
            what: redacted.line.clone(),
            why: WHY_ASK.to_string(),
            who: Asked::Anyone,
            rule: Some(Rule::for_command(program.name(), redacted.rule_args())),
        };
        let subject = Subject::Spawn { program: program.name(), args };
        match self.gate.settle(call, decision, &subject, request) {
            Ok(by) => {
                entry.decided_by = Some(by);
                Ok(())
            }
            Err(refusal) => {
                entry.decided_by = Some(refusal.by.clone());
                Err(refusal.into_spawn_error(redacted.line.clone(), WHY_ASK.to_string()))
            }
        }
    }
}
