//! The `rein` command (feature `cli`): [`main`] parses the arguments, builds a [`Host`] and
//! prints. Each command builds what it needs from the library and reports through `output`,
//! which owns the exit status and the JSON contract.
//!
//! The binary is only `fn main() -> ExitCode { rein::cli::main() }` (src/main.rs). The CLI is
//! a client of the crate's public API like any embedder: it names nothing but what the crate
//! root exports (and `rein::mcp`), which `.ci/run` proves by compiling these files in
//! `tests/cli_public`, a crate that depends on rein as an embedder does.

mod approvals;
mod args;
mod authoring;
mod kept;
mod logging;
mod mcp_add;
mod output;
mod packs;
mod progress;
mod prompt;
mod recipes;
mod reference;
mod render;
mod screen;
mod serve;
mod tty;

use std::io::{IsTerminal, Read};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;

use prompt::TerminalPrompt;
use serde_json::{json, Value};

use rein::{Approver, AssumeYes, Code, Failure, Headless, Host, HostBuilder, Serving};

use args::{Cli, Command, NewApp, NewWhat};
use output::Output;
use screen::{say, tell};

fn watch(host: Host, out: &Output) -> u8 {
    let host = Arc::new(host);
    let json = out.json;
    let watcher = host.watch(move |outcome| {
        if outcome.files.is_empty() {
            return;
        }
        if json {
            say!("{}", screen::json(&json!({"reload": outcome})));
            return;
        }
        if outcome.applied {
            let mut changes = Vec::new();
            if !outcome.loaded.is_empty() {
                changes.push(format!("loaded {}", outcome.loaded.join(", ")));
            }
            if !outcome.deleted.is_empty() {
                changes.push(format!("deleted {}", outcome.deleted.join(", ")));
            }
            if !outcome.added.is_empty() {
                changes.push(format!("added {}", outcome.added.join(", ")));
            }
            if !outcome.removed.is_empty() {
                changes.push(format!("removed {}", outcome.removed.join(", ")));
            }
            say!("generation {}: {}", outcome.generation, changes.join("; "));
        }
        for kept in &outcome.kept {
            let serving = match kept.serving {
                Serving::PreviousVersion => "its last good version serves",
                Serving::Nothing => "nothing of it serves",
            };
            tell!("kept back {} ({serving}): {}", kept.file, kept.problem);
        }
    });
    let _watcher = match watcher {
        Ok(watcher) => watcher,
        Err(failure) => return out.failure(&failure),
    };
    tell!("watching tools/, recipes/ and prelude/ of {} (Ctrl-C to stop)", rein::visible::path(host.workspace()));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
    if let Ok(runtime) = runtime {
        let _ = runtime.block_on(rein::stop_requested());
    }
    0
}

/// Runs the `rein` command with the process's arguments and returns its exit status: 0 ok,
/// 1 the tool or recipe failed, 2 usage or configuration error.
pub fn main() -> ExitCode {
    // Like other Unix tools, stop quietly when the reader of stdout goes away
    // (`rein tools | head`) instead of panicking on a broken pipe.
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // No other process of the person (nor one rein runs unconfined) may read rein's memory or
    // environment, where the signing passwords' variables live: /proc/<pid>/environ and mem
    // then need CAP_SYS_PTRACE, which no program rein spawns holds (prctl(2) PR_SET_DUMPABLE).
    // SAFETY: a prctl on this process, before any thread starts.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
    // A kept program's holder (`kernel::process::kept`), started by rein itself: no clap, no
    // logging, no runtime — it only holds the program and copies its output to the log.
    let raw: Vec<String> = std::env::args().collect();
    if raw.get(1).map(String::as_str) == Some(rein::HOLD_COMMAND) {
        return match rein::hold_kept_program(&raw[2..]) {
            Ok(code) => ExitCode::from(code),
            Err(refused) => {
                tell!("{refused}");
                ExitCode::from(if matches!(refused, rein::HoldRefused::Usage) { 2 } else { 1 })
            }
        };
    }
    let args = Cli::parse();
    logging::init(args.verbose);
    ExitCode::from(run(args))
}

fn run(cli: Cli) -> u8 {
    let out = Output { json: cli.json, verbose: cli.verbose > 0 };
    let workspace = cli.workspace.clone().unwrap_or_else(|| std::path::PathBuf::from("."));
    let writes_workspace =
        matches!(cli.command, Command::Types { .. } | Command::Init | Command::New { .. } | Command::Mcp { .. });
    if writes_workspace && !workspace.is_dir() {
        let message = format!(
            "workspace {} is not a folder; create it first or pass --workspace DIR",
            rein::visible::path(workspace)
        );
        return out.failure(&Failure::new(Code::InvalidConfig, message));
    }
    match &cli.command {
        Command::Types { dir, out: dir_option } => {
            return authoring::types(&workspace, dir.as_deref().or(dir_option.as_deref()), &out)
        }
        Command::Init => return authoring::init(&workspace, &out),
        Command::New { what: NewWhat::App(app) } => return new_app(&cli, app, &out),
        Command::New { what } => return authoring::new(&workspace, what, &out),
        Command::Completions { shell } => return reference::completions(*shell, &out),
        Command::Man { command } => return reference::man(command, &out),
        Command::Mcp { action } => return mcp_add::run(&workspace, action, &out),
        _ => {}
    }
    if let Command::Pack { action } = &cli.command {
        // Lenient: a pack that does not load (tampered, not installed) can still be repaired.
        return match host_builder(&cli).build_lenient() {
            Ok((host, _)) => packs::run(&host, action, &out),
            Err(failure) => out.failure(&failure),
        };
    }
    if let Command::Approvals { action } = &cli.command {
        let rules = rein::ApprovalRules::of_home(cli.home.clone().unwrap_or_else(rein::default_home));
        let host = || host_builder(&cli).project_code(false).build_lenient().map(|(host, _)| host);
        return approvals::run(&rules, host, action, &out);
    }
    if let Command::Serve { .. } = &cli.command {
        return serve::run(&cli);
    }
    // A call loads only the files that can declare its tool: a process making one call need not
    // run every tool file first.
    let only = match &cli.command {
        Command::Call { tool, .. } => Some(tool.as_str()),
        _ => None,
    };
    let host = match build_host(&cli, only) {
        Ok(host) => host,
        Err(failure) => return out.failure(&failure),
    };
    if let Some(warning) = host.policy_warning() {
        tell!("warning: {warning}");
    }
    match &cli.command {
        Command::Tools => tools(&host, &out),
        Command::Call { tool, args } => match serving(host, &cli, tool) {
            Ok(host) => call(&host, &out, tool, args.as_deref()),
            Err(failure) => out.failure(&failure),
        },
        Command::Check => check(&host, &out),
        Command::Test { name } => test(&host, &out, name.as_deref()),
        Command::Watch => watch(host, &out),
        Command::Recipe { name, args, explain, from } => {
            recipes::run(&host, &out, name, args.as_deref(), *explain, from.clone())
        }
        Command::Runs { action } => recipes::runs(&host, &out, action),
        Command::Undo { run_id, force } => recipes::undo(&host, &out, run_id, *force),
        Command::Doctor => doctor(&host, &out),
        Command::Ps => kept::ps(&host, &out),
        Command::Stop { id } => kept::stop(&host, &out, id),
        Command::Approvals { .. }
        | Command::Serve { .. }
        | Command::Pack { .. }
        | Command::Types { .. }
        | Command::Init
        | Command::New { .. }
        | Command::Completions { .. }
        | Command::Mcp { .. }
        | Command::Man { .. } => unreachable!("handled before the host is built"),
    }
}

fn build_host(cli: &Cli, only: Option<&str>) -> Result<Host, Failure> {
    // Past runs and undo need no tool: they do not load the project's code (nor packs), so a
    // tool file the agent broke — one that loops while it loads, say — cannot stall them.
    let needs_tools = !matches!(cli.command, Command::Runs { .. } | Command::Undo { .. });
    let builder = host_builder(cli).project_code(needs_tools).approver(approver(cli, true));
    match only {
        Some(name) => builder.serving_only([name]),
        None => builder,
    }
    .build()
}

/// `host`, if it serves `tool` or knows why it cannot; else a whole host, so a name that is not
/// there gets the whole answer (names like it, a pack to sync, the files that did not load).
fn serving(host: Host, cli: &Cli, tool: &str) -> Result<Host, Failure> {
    if host.has_tool(tool) || host.problems().iter().any(|problem| problem.tool.as_deref() == Some(tool)) {
        return Ok(host);
    }
    drop(host);
    build_host(cli, None)
}

/// A host builder for `--workspace` and `--home`.
pub(crate) fn host_builder(cli: &Cli) -> HostBuilder {
    let mut builder = Host::builder();
    if let Some(dir) = &cli.workspace {
        builder = builder.workspace(dir);
    }
    if let Some(dir) = &cli.home {
        builder = builder.home(dir);
    }
    builder
}

/// Who answers the policy's questions: `--yes` (where honoured), the person typing commands,
/// or nobody — agents and scripts (stdin not a terminal) get APPROVAL_REQUIRED with the
/// command a person can run instead.
fn approver(cli: &Cli, honour_yes: bool) -> Arc<dyn Approver> {
    if honour_yes && cli.yes {
        Arc::new(AssumeYes)
    } else if std::io::stdin().is_terminal() && TerminalPrompt::available() {
        Arc::new(TerminalPrompt)
    } else {
        Arc::new(Headless)
    }
}

/// `rein new app`: the project_create tool, so the files go through the kernel like an agent's.
fn new_app(cli: &Cli, app: &NewApp, out: &Output) -> u8 {
    let host = match build_host(cli, Some("project_create")) {
        Ok(host) => host,
        Err(failure) => return out.failure(&failure),
    };
    let mut args = json!({
        "bundle_name": app.bundle_name,
        "app_name": app.app_name,
        "path": app.path,
        "runtime_os": app.runtime_os,
    });
    for (name, value) in
        [("compatible_sdk", &app.compatible_sdk), ("target_sdk", &app.target_sdk), ("compile_sdk", &app.compile_sdk)]
    {
        if let Some(value) = value {
            args[name] = json!(value);
        }
    }
    call(&host, out, "project_create", Some(&args.to_string()))
}

fn tools(host: &Host, out: &Output) -> u8 {
    out.warn_problems(&host.problems());
    if out.json {
        return out.success(&json!({"tools": host.tools(), "recipes": host.recipes(), "problems": host.problems()}));
    }
    render::tool_table(&host.tools());
    let recipes = host.recipes();
    if !recipes.is_empty() {
        say!();
        render::tool_table(&recipes);
    }
    0
}

fn call(host: &Host, out: &Output, tool: &str, args: Option<&str>) -> u8 {
    let args = match parse_args(args) {
        Ok(args) => args,
        Err(failure) => return out.failure(&failure),
    };
    match call_until_stopped(host, tool, args) {
        Ok(result) if out.json => out.success(&result),
        Ok(result) => {
            render::result(&result);
            0
        }
        Err(failure) => out.failure(&failure),
    }
}

/// Calls `tool`; Ctrl-C (SIGINT, SIGTERM, SIGHUP) cancels it, as a cancel over MCP does: the
/// script stops at its next budget check, its programs are killed, and the call ends with
/// CANCELLED. The signals are heard on a thread of their own, so a script that never waits is
/// stopped too.
/// How long `rein call` waits for its Ctrl-C handlers before it calls without them.
const SIGNALS_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

fn call_until_stopped(host: &Host, tool: &str, args: Value) -> Result<Value, Failure> {
    let cancel = rein::CancellationToken::new();
    let stopper = cancel.clone();
    let (ready, installed) = std::sync::mpsc::channel();
    let listen = move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_io().build() else { return };
        runtime.block_on(async {
            let Ok(mut signals) = rein::StopSignals::install() else { return };
            let _ = ready.send(());
            signals.recv().await;
            stopper.cancel();
        });
    };
    // The call starts only once Ctrl-C is heard: before, under load, a tool ran before the
    // thread had installed its handlers, and Ctrl-C killed rein instead of cancelling.
    let heard = std::thread::Builder::new().name("rein-stop".to_string()).spawn(listen).map_err(|e| e.to_string());
    if let Err(why) = heard.and_then(|_| installed.recv_timeout(SIGNALS_WAIT).map_err(|e| e.to_string())) {
        tell!("warning: Ctrl-C will not cancel the call: its handlers could not be installed ({why})");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::new(Code::InvalidConfig, format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(host.call_with(host.new_call().with_cancel(cancel), tool, args))
}

pub(crate) fn parse_args(text: Option<&str>) -> Result<Value, Failure> {
    let text = match text {
        None => return Ok(json!({})),
        Some("-") => {
            let mut buf = String::new();
            std::io::stdin()
                .read_to_string(&mut buf)
                .map_err(|e| Failure::new(Code::InvalidArgs, format!("cannot read arguments from stdin: {e}")))?;
            buf
        }
        Some(text) => text.to_string(),
    };
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        Failure::new(
            Code::InvalidArgs,
            format!("arguments are not valid JSON ({e}); pass an object like '{{\"path\":\"a.txt\"}}'"),
        )
    })?;
    if !value.is_object() {
        return Err(Failure::new(Code::InvalidArgs, "arguments must be a JSON object, like '{\"path\":\"a.txt\"}'"));
    }
    Ok(value)
}

/// Each problem once, as `file:line: message`; exit 1 if there is one.
fn check(host: &Host, out: &Output) -> u8 {
    let problems = host.problems();
    let enforced = enforced_hints(host);
    if problems.is_empty() {
        if out.json {
            return out.success(
                &json!({"tools": host.tools().len(), "recipes": host.recipes().len(), "problems": [], "enforced": enforced}),
            );
        }
        say!("{} tools and {} recipes loaded, no problems", host.tools().len(), host.recipes().len());
        for (hint, names) in &enforced {
            say!("the kernel holds to {hint}: {}", names.join(", "));
        }
        return 0;
    }
    let count = match problems.len() {
        1 => "1 problem".to_string(),
        n => format!("{n} problems"),
    };
    let failure = Failure::new(
        Code::ToolInvalid,
        format!("{count} in tool and recipe files; fix them and run `rein check` again"),
    );
    if out.json {
        out.failure(&failure.with_details(json!({"problems": problems, "tools": host.tools().len()})));
    } else {
        out.warn_problems(&problems);
        out.failure(&failure);
    }
    1
}

/// The tools and recipes whose annotations the kernel enforces, by hint (`readOnlyHint`:
/// reads only; `destructiveHint` false: adds only).
fn enforced_hints(host: &Host) -> std::collections::BTreeMap<&'static str, Vec<String>> {
    let mut by_hint: std::collections::BTreeMap<&'static str, Vec<String>> = Default::default();
    for info in host.tools().into_iter().chain(host.recipes()) {
        if let Some(hint) = info.annotations.enforced_hint() {
            by_hint.entry(hint).or_default().push(info.name);
        }
    }
    by_hint
}

/// Exit 1 (`TOOLCHAIN_NOT_FOUND`) when a program a built-in tool needs is missing.
fn doctor(host: &Host, out: &Output) -> u8 {
    let diagnosis = host.doctor();
    let report = json!({
        "config": diagnosis.config,
        "programs": diagnosis.programs,
        "candidates": diagnosis.candidates,
        "from_local_properties": diagnosis.from_local_properties,
        "confinement": host.confinement(),
        "policy_pending": host.policy_pending(),
        "policy_warning": host.policy_warning(),
    });
    if !out.json {
        render::doctor::print(&diagnosis);
        say!("{:<14} {}", "confinement", host.confinement());
        let command = host.policy_review_command();
        for pending in host.policy_pending() {
            say!("{:<14} waiting for a person (`{command}`): {pending}", "policy");
        }
    }
    let missing: Vec<&str> = diagnosis.missing_needed().iter().map(|p| p.program.as_str()).collect();
    if missing.is_empty() {
        return if out.json { out.success(&report) } else { 0 };
    }
    let failure = Failure::new(
        Code::ToolchainNotFound,
        format!(
            "the built-in tools need {} and rein did not find {}; do what each line above says, then run `rein doctor` again",
            missing.join(", "),
            if missing.len() == 1 { "it" } else { "them" }
        ),
    );
    if out.json {
        out.failure(&failure.with_details(report))
    } else {
        out.failure(&failure)
    }
}

fn test(host: &Host, out: &Output, name: Option<&str>) -> u8 {
    let outcomes = match host.run_checks(name) {
        Ok(outcomes) => outcomes,
        Err(failure) => return out.failure(&failure),
    };
    let failed = outcomes.iter().filter(|o| !o.passed).count();
    if !out.json {
        for o in &outcomes {
            match &o.problem {
                None => say!("{}    {} check {}", render::style::status("ok"), o.tool, o.check),
                Some(problem) => {
                    say!("{}  {} check {}: {problem}", render::style::status("FAIL"), o.tool, o.check)
                }
            }
        }
        say!("{} passed, {} failed", outcomes.len() - failed, failed);
    }
    if failed == 0 {
        return if out.json { out.success(&json!({"checks": outcomes})) } else { 0 };
    }
    let failure =
        Failure::new(Code::VerifyFailed, format!("{failed} check(s) failed")).with_details(json!({"checks": outcomes}));
    if out.json {
        out.failure(&failure)
    } else {
        1
    }
}
