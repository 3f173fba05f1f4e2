//! `Kernel::run`: a toolchain program through every check — known program, found on this
//! machine, working directory in the workspace, the approval policy, the environment
//! allow-list, a bounded deadline — then the process runner.

use std::path::Path;
use std::time::Duration;

use crate::kernel::approval::approver::ApprovalRequest;
use crate::kernel::approval::rules::{Rule, Subject};
use crate::kernel::approval::{decide_spawn, Program};
use crate::kernel::journal::Entry;
use crate::kernel::spawn::{self, SpawnOutput, SpawnRequest, Stream};
use crate::kernel::{env, redact, Kernel, KernelError, PathClass};

/// Output kept per stream: the first and last half MiB.
const OUTPUT_LIMIT: usize = 1024 * 1024;

#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Working directory, relative to the workspace (default: the workspace root).
    pub cwd: Option<String>,
    /// May lower the program's default deadline, or raise it up to its cap.
    pub timeout_ms: Option<u64>,
    pub stdin: Option<Vec<u8>>,
    /// Extra environment variables (they obey the same allow-list).
    pub env: Vec<(String, String)>,
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

/// The arguments of a rule that allows this exact command again; secrets become `*`.
fn rule_args(args: &[String]) -> Vec<String> {
    redact::redact_args(args)
        .into_iter()
        .map(|a| if a == redact::REDACTED { "*".to_string() } else { glob::Pattern::escape(&a) })
        .collect()
}

impl Kernel {
    pub async fn run(
        &self,
        program: &str,
        args: Vec<String>,
        opts: RunOptions,
        on_line: &mut (dyn FnMut(Stream, &str) -> Result<(), String> + Send),
    ) -> Result<SpawnOutput, KernelError> {
        let command = redact::command_line(program, &args);
        let mut entry = Entry { action: "spawn".into(), target: command, ..Default::default() };
        let result = self.run_checked(Program::parse(program), args, opts, on_line, &mut entry).await;
        let output = match &result {
            Ok(output) => Some(output),
            Err(KernelError::Timeout { output, .. }) => Some(output.as_ref()),
            Err(_) => None,
        };
        if let Some(output) = output {
            entry.exit_code = output.code;
            entry.duration_ms = Some(output.duration_ms);
        }
        self.record_outcome(entry, &result);
        result
    }

    async fn run_checked(
        &self,
        program: Program,
        args: Vec<String>,
        opts: RunOptions,
        on_line: &mut (dyn FnMut(Stream, &str) -> Result<(), String> + Send),
        entry: &mut Entry,
    ) -> Result<SpawnOutput, KernelError> {
        let command = entry.target.clone();
        let located = match self.spawn.toolchain.get(&program) {
            None => return Err(KernelError::ProgramNotAllowed { program: program.name().to_string() }),
            Some(Err(missing)) => {
                return Err(KernelError::ToolchainNotFound {
                    program: program.name().to_string(),
                    tried: missing.tried.clone(),
                    fix: missing.fix.clone(),
                })
            }
            Some(Ok(located)) => located.clone(),
        };
        let cwd = self.scope.resolve(opts.cwd.as_deref().unwrap_or("."))?;
        let classify = |p: &str| self.scope.resolve(p).map(|r| r.class).unwrap_or(PathClass::Outside);
        let classify_in_cwd = |p: &str| {
            let joined =
                if Path::new(p).is_absolute() { p.to_string() } else { cwd.real.join(p).display().to_string() };
            classify(&joined)
        };
        let decision = decide_spawn(&program, &args, cwd.class, &classify_in_cwd);
        let why = "it changes a device, reaches the network or touches files outside the workspace".to_string();
        let rule = Rule { program: Some(program.name().to_string()), args: rule_args(&args), path: None, access: None };
        let request = ApprovalRequest { what: command.clone(), why: why.clone(), human_only: false, rule: Some(rule) };
        let subject = Subject::Spawn { program: program.name(), args: &args };
        entry.decided_by = Some(
            self.gate().settle(decision, &subject, request).map_err(|r| r.into_spawn_error(command.clone(), why))?,
        );
        self.take_spawn()?;
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
        let env = env::child_env(std::env::vars(), &opts.env, &self.spawn.pass_env).map_err(KernelError::invalid)?;
        let argv = match &located.jar {
            Some(jar) => {
                ["-jar".to_string(), jar.display().to_string()].into_iter().chain(args.iter().cloned()).collect()
            }
            None => args.clone(),
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
        super::activity::announce(&format!("running {command}"));
        let secrets = redact::secrets_in(&args);
        let mut scrubbed = |stream: Stream, line: &str| on_line(stream, &redact::scrub(line, &secrets));
        let mut output = spawn::run(&request, &mut scrubbed).await.map_err(|e| match e {
            spawn::SpawnError::Stopped(reason) => KernelError::Stopped { command: command.clone(), reason },
            other => KernelError::io("run", command.clone(), std::io::Error::other(other.to_string())),
        })?;
        super::activity::announce(&format!(
            "{} ended: exit {} in {:.1} s",
            program.name(),
            output.code.map_or("by signal".to_string(), |c| c.to_string()),
            output.duration_ms as f64 / 1000.0
        ));
        output.stdout = redact::scrub(&output.stdout, &secrets);
        output.stderr = redact::scrub(&output.stderr, &secrets);
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
}
