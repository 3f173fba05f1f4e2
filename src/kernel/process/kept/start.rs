//! Starting a kept program: the profile must name the command line as one to keep, a person
//! (or a rule a person made) says yes, and then the holder starts in a session of its own
//! inside the program's confinement (module docs of `kept`).

use std::path::{Path, PathBuf};

use super::{Record, HOLD_COMMAND, KEPT_DIR};
use crate::kernel::journal::{Action, Entry};
use crate::kernel::policy::rules::command_line;
use crate::kernel::policy::{controls, ApprovalRequest, Asked, Decision, Rule, Subject};
use crate::kernel::process::{confine, env, question, seatbelt, windows_acl, RunOptions};
use crate::kernel::secrets::redact::Redacted;
use crate::kernel::{Call, Kernel, KernelError};

/// Why a person is asked about keeping a program.
const WHY_KEEP: &str =
    "it keeps running after this call ends (until `rein stop` or its own stop), and only a person starts such a program";

impl Kernel {
    /// Starts `program args` kept: it outlives this call, held by `rein hold` (module docs).
    /// Returns its record once the holder runs (the program itself may still fail to start:
    /// its log says so, and [`Kernel::kept_one`] then says `ended`).
    pub async fn keep(&self, call: &Call, program: &str, args: Vec<String>) -> Result<Record, KernelError> {
        let profile = self.spawn.profile.as_ref();
        let redacted = Redacted::new(program, &args, profile.secret_flags()).with_secrets(call.secrets());
        let mut entry = Entry::new(Action::Spawn, &format!("keep {}", redacted.line));
        let result = self.keep_checked(call, program, &args, &redacted, &mut entry);
        self.record(call, entry, &result);
        result
    }

    fn keep_checked(
        &self,
        call: &Call,
        program: &str,
        args: &[String],
        redacted: &Redacted,
        entry: &mut Entry,
    ) -> Result<Record, KernelError> {
        let profile = self.spawn.profile.as_ref();
        let command = redacted.line.clone();
        if let Some(found) = controls::control_in(profile.is_persons_own(program), args) {
            return Err(KernelError::ControlInArgument {
                program: program.to_string(),
                argument: found.argument,
                position: found.position,
                shown: found.shown,
            });
        }
        if let Some(bound) = call.bound() {
            // What the tool declared it does not do, held by what the command's shape does.
            if !bound.restriction.allows(profile.effect(program, args)) {
                entry.decided_by = Some(crate::kernel::policy::DecidedBy::Annotation(bound.tool.clone()));
                return Err(KernelError::Annotated {
                    tool: bound.tool.clone(),
                    restriction: bound.restriction,
                    what: format!("keep `{command}` running"),
                });
            }
        }
        if !profile.may_keep(program, args) {
            return Err(KernelError::NotKept { command });
        }
        // A hidden argument would make the question (and the rule a person may save: `*` where
        // it stands) say less than what keeps running.
        if redacted.holds_secret() {
            return Err(KernelError::KeptSecret { command });
        }
        let Some(found) = profile.locate(program) else {
            return Err(KernelError::ProgramNotAllowed { program: program.to_string(), known: profile.known() });
        };
        let subject = Subject::Spawn { program, args };
        if let Err(refusal) = self.gate.bounds(call, &subject, &command) {
            entry.decided_by = Some(refusal.by.clone());
            return Err(refusal.into_spawn_error(command, WHY_KEEP.to_string()));
        }
        let located = found.map_err(|missing| KernelError::ToolchainNotFound {
            program: program.to_string(),
            tried: missing.tried,
            fix: missing.fix,
        })?;
        let cwd = self.scope.resolve(".")?;
        let plan = confine::decide(self.spawn.confine, confine::level());
        entry.confinement = Some(plan.journal());
        if let confine::Plan::Refuse(why) = &plan {
            return Err(KernelError::Unconfinable { program: program.to_string(), why: why.clone() });
        }
        if let confine::Plan::Unconfined(why) = &plan {
            if self.spawn.confine == confine::ConfineMode::Auto {
                confine::warn_unconfined_once(why);
            }
        }
        // Always a person: their answer, or a rule they made in home approvals.toml. `--yes`
        // answers only what anyone may (`Asked::Anyone`), and the project's rein.toml can only
        // deny (`Gate::bounds`).
        let facts = question::Facts {
            located: &located,
            cwd: &cwd.real,
            outside: Vec::new(),
            writes: Vec::new(),
            plan: &plan,
            env: Vec::new(),
            input: None,
        };
        let request = ApprovalRequest {
            what: format!("start and keep running {command}"),
            why: WHY_KEEP.to_string(),
            context: question::context(&facts),
            who: Asked::Person,
            rule: Some(Rule::for_command(program, redacted.rule_args())),
        };
        let by = self
            .gate
            .settle(call, Decision::Ask, &subject, request)
            .map_err(|refusal| refusal.into_spawn_error(command.clone(), WHY_KEEP.to_string()))?;
        entry.decided_by = Some(by.clone());
        if !call.take_spawn() {
            return Err(KernelError::SpawnBudget);
        }
        let holder_exe = std::env::current_exe().map_err(|e| KernelError::io("find", "rein's own program", e))?;
        let id = new_id(program);
        let opts = RunOptions::default();
        let mut env = env::child_env(std::env::vars(), &opts.env, &self.spawn.pass_env, &profile.passed_env())?;
        env.retain(|(name, _)| !profile.withholds_env(name));
        // Its own temp folder, kept while it runs (`rein stop` removes it).
        let tmp = tempfile::Builder::new()
            .prefix(&tmp_prefix(&id))
            .tempdir()
            .map_err(|e| KernelError::io("create a temp directory for", command.clone(), e))?
            .keep();
        // Removed again unless the holder starts.
        let mut made = MadeUntilStarted(Some(tmp.clone()));
        env.retain(|(name, _)| name != "TMPDIR");
        env.push(("TMPDIR".to_string(), tmp.display().to_string()));
        if cfg!(windows) {
            // Windows programs take their temp folder from TEMP and TMP (as `Kernel::run`'s do).
            env.retain(|(name, _)| !name.eq_ignore_ascii_case("TEMP") && !name.eq_ignore_ascii_case("TMP"));
            for name in ["TEMP", "TMP"] {
                env.push((name.to_string(), tmp.display().to_string()));
            }
        }
        profile.check(program, args, &env)?;
        profile.adjust_env(program, &located, &mut env, self.scope.workspace());
        let cannot = |e: confine::ConfineError| {
            KernelError::io("confine", command.clone(), std::io::Error::other(e.to_string()))
        };
        let grants = || {
            let mut grants = self.confinement_profile(program, &located, args, &env, entry, &[]);
            // Nothing of the workspace is writable: no call is left to watch what it makes
            // there (a planted `.git`, `planted`), for as long as it runs.
            let workspace = self.scope.workspace();
            grants.write_no_link.clear();
            grants.write.retain(|w| !w.starts_with(workspace) && !workspace.starts_with(w));
            grants.create.retain(|c| !c.starts_with(workspace));
            // The holder is rein's own program, run inside the same confinement.
            grants.read.push(holder_exe.clone());
            grants.write.push(tmp.clone());
            grants
        };
        let mut before_exec = None;
        // Windows: the capability SID of the holder's token, and its entries (`windows_acl`).
        let mut restricted: Option<(String, windows_acl::Granted)> = None;
        let mut holder_program = holder_exe.clone();
        let spawn = crate::kernel::process::toolchain::Spawn { kernel: self, call, program, args };
        let args = profile.hand_over(&spawn, args.to_vec(), None, &tmp)?;
        let argv = profile.argv(program, &located, args.clone(), &tmp, &command)?;
        let mut holder_argv: Vec<String> = vec![HOLD_COMMAND.into(), "--id".into(), id.clone(), "--".into()];
        holder_argv.push(located.path.display().to_string());
        holder_argv.extend(argv);
        match &plan {
            confine::Plan::Landlock { .. } => {
                let grants = grants();
                confine::make_dirs(&grants).map_err(cannot)?;
                before_exec = Some(confine::before_exec(confine::prepare(&grants).map_err(cannot)?));
            }
            confine::Plan::Seatbelt => {
                let grants = grants();
                confine::make_dirs(&grants).map_err(cannot)?;
                let profile = seatbelt::profile(&seatbelt::as_resolved(grants), &seatbelt::protected_names());
                holder_argv = profile.args(&holder_exe, holder_argv);
                holder_program = PathBuf::from(seatbelt::SANDBOX_EXEC);
            }
            confine::Plan::RestrictedToken => {
                let grants = grants();
                confine::make_dirs(&grants).map_err(cannot)?;
                let io = |e: std::io::Error| KernelError::io("confine", command.clone(), e);
                let sid = windows_acl::new_capability_sid().map_err(io)?;
                let records = windows_acl::records_in(self.scope.home());
                let granted =
                    windows_acl::grant(windows_acl::os_entries(), &records, &grants, &sid, std::process::id())
                        .map_err(|e| io(std::io::Error::other(e.to_string())))?;
                restricted = Some((sid, granted));
            }
            confine::Plan::Unconfined(_) if self.spawn.confine != confine::ConfineMode::Off => {
                before_exec = confine::harden_only(&profile.sockets(program)).map(confine::before_exec);
            }
            _ => {}
        }
        let log_rel = format!("{KEPT_DIR}/{id}.log");
        let log = self.create_rein_file(Path::new(&log_rel))?;
        let sid = restricted.as_ref().map(|(sid, _)| sid.as_str());
        let started = spawn_holder(&holder_program, &holder_argv, &cwd.real, &env, log, before_exec, sid);
        let (holder_pid, holder_created) = match started {
            Ok(started) => started,
            Err(e) => {
                if let Some((_, granted)) = restricted {
                    revoke(granted);
                }
                return Err(start_failed(&command, e));
            }
        };
        let mut capability_sid = None;
        if let Some((sid, granted)) = restricted {
            // The entries live as long as the holder (`Granted::hand_to`), not this rein.
            if let Err(e) = granted.hand_to(&windows_acl::records_in(self.scope.home()), &sid, holder_pid) {
                end_unrecorded(holder_pid, holder_created);
                revoke(granted);
                return Err(KernelError::io("record the ACL entries of", command.clone(), e));
            }
            capability_sid = Some(sid);
        }
        let record = Record {
            id: id.clone(),
            program: program.to_string(),
            args: redacted.args.clone(),
            command: command_line(program, &redacted.args),
            holder_pid,
            holder_created,
            capability_sid,
            started_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            workspace: crate::visible::shown_path(self.scope.workspace()),
            approved_by: by,
            confinement: plan.journal(),
            log: log_rel,
            tmp: tmp.display().to_string(),
            stopped: None,
        };
        if let Err(e) = self.write_kept_record(&record) {
            // Without its record nobody could list or stop it: it does not run.
            end_unrecorded(holder_pid, holder_created);
            return Err(e);
        }
        made.0 = None;
        entry.target = format!("keep {command} (kept {id}, holder {holder_pid})");
        Ok(record)
    }
}

/// Ends a holder whose record could not be written, with its process group (Unix) or its
/// own job (Windows: the holder is ended, its job then ends the program).
fn end_unrecorded(holder_pid: u32, holder_created: Option<u64>) {
    #[cfg(unix)]
    if let Ok(group) = i32::try_from(holder_pid) {
        let _ = holder_created;
        // SAFETY: signals the process group of the holder just started (its own session).
        unsafe { libc::kill(-group, libc::SIGKILL) };
    }
    #[cfg(windows)]
    if let Some(created) = holder_created {
        crate::kernel::platform::process_windows::end(holder_pid, created, std::time::Duration::from_secs(3));
    }
}

/// Removes the ACL entries of a kept program that did not start; what cannot be removed stays
/// recorded for the next start, and is said.
fn revoke(granted: windows_acl::Granted) {
    if let Err(undone) = granted.revoke(windows_acl::os_entries()) {
        tracing::warn!(target: "rein::spawn", "{undone} (recorded: the next start removes them)");
    }
}

/// What a failed holder start is: rein's Job Object forbidding breakaway is `KEEP_IMPOSSIBLE`
/// (`token_windows::DetachError`), anything else the system's error.
fn start_failed(command: &str, e: std::io::Error) -> KernelError {
    #[cfg(windows)]
    {
        use crate::kernel::platform::token_windows::DetachError;
        if let Some(refused @ DetachError::JobForbidsBreakaway) = e.get_ref().and_then(|i| i.downcast_ref()) {
            return KernelError::KeepImpossible { command: command.to_string(), why: refused.to_string() };
        }
    }
    KernelError::io("start the holder of", command.to_string(), e)
}

/// A kept program's temp folder while it is being started: removed when the start fails.
struct MadeUntilStarted(Option<PathBuf>);

impl Drop for MadeUntilStarted {
    fn drop(&mut self) {
        if let Some(dir) = self.0.take() {
            // Empty and rein's own; one that cannot be removed is left in the temp folder.
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// How a kept program's own temp folder's name begins (the rest is random).
pub(super) fn tmp_prefix(id: &str) -> String {
    format!("rein-kept-{id}-")
}

/// `<program>-<unix seconds>-<random hex>`.
fn new_id(program: &str) -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let mut random = [0u8; 3];
    // An id only names a record; without the OS's random source the pid keeps it apart.
    if getrandom::fill(&mut random).is_err() {
        random = (std::process::id() & 0xff_ffff).to_be_bytes()[1..].try_into().unwrap_or_default();
    }
    let name: String = program.chars().filter(|c| c.is_ascii_alphanumeric()).take(20).collect();
    format!("{name}-{secs}-{:02x}{:02x}{:02x}", random[0], random[1], random[2])
}

/// Starts the holder in a session of its own (not in rein's, so nothing that ends rein's
/// session or process group ends it), its stdin closed and its output the log; returns its
/// pid. A thread waits for it, so an ended holder is never left a zombie while rein runs.
#[cfg(unix)]
fn spawn_holder(
    program: &Path,
    argv: &[String],
    cwd: &Path,
    env: &[(String, String)],
    log: std::fs::File,
    mut before_exec: Option<crate::kernel::platform::tree::BeforeExec>,
    _restricted: Option<&str>,
) -> std::io::Result<(u32, Option<u64>)> {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new(program);
    cmd.args(argv)
        .current_dir(cwd)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log);
    // SAFETY: between fork and exec: setsid is one system call; `before_exec` is the
    // confinement prepared before the fork (`confine::before_exec`: system calls only).
    unsafe {
        cmd.pre_exec(move || {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            match before_exec.as_mut() {
                Some(confine) => confine(),
                None => Ok(()),
            }
        });
    }
    let mut child = cmd.spawn()?;
    let pid = child.id();
    std::thread::Builder::new().name("rein-kept-reaper".into()).spawn(move || {
        let _ = child.wait();
    })?;
    Ok((pid, None))
}

/// Starts the holder detached from rein's console, process group and Job Object
/// (`token_windows::start_detached`), with the write-restricted token of capability SID
/// `restricted` where the program is confined (the program it starts inherits the token) —
/// the command line and environment built as every restricted spawn's are
/// (`process::windows_launch`); returns its pid and creation time. Nothing waits for it:
/// Windows leaves no zombie.
#[cfg(windows)]
fn spawn_holder(
    program: &Path,
    argv: &[String],
    cwd: &Path,
    env: &[(String, String)],
    log: std::fs::File,
    before_exec: Option<crate::kernel::platform::tree::BeforeExec>,
    restricted: Option<&str>,
) -> std::io::Result<(u32, Option<u64>)> {
    use crate::kernel::platform::token_windows::{self, DetachError, RestrictedToken};
    use crate::kernel::process::windows_launch::{command_line, environment_block};
    if before_exec.is_some() {
        return Err(std::io::Error::other("Windows programs cannot run work before they start"));
    }
    let invalid = |e: crate::kernel::process::windows_launch::LaunchError| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, e)
    };
    let line = command_line(program, argv).map_err(invalid)?;
    let env = environment_block(env).map_err(invalid)?;
    let token = restricted.map(RestrictedToken::new).transpose()?;
    let launch = token_windows::Launch { program, command_line: &line, env: &env, cwd };
    match token_windows::start_detached(token.as_ref(), &launch, &log) {
        Ok(started) => Ok((started.pid, Some(started.created))),
        Err(DetachError::Io(e)) => Err(e),
        Err(refused) => Err(std::io::Error::other(refused)),
    }
}
