//! `rein pack add|sync|update|remove|list|verify`. Installing writes rein's home, so a person
//! confirms it at the terminal after seeing the pack's permissions (for an update: what
//! changed in them). rein.toml and rein.lock are written by one function, `write_policy_file`.

use std::path::{Component, Path, PathBuf};

use serde_json::json;

use std::sync::Arc;

use rein::host::policy_files;
use rein::kernel::policy::{Answer, ApprovalRequest, Approver};
use rein::kernel::{Actor, Call, Kernel};
use rein::packs::git::{fetch, Fetched, Source, Wanted};
use rein::packs::install::{install, plan, Plan};
use rein::packs::installed::{install_dir, verify_one};
use rein::packs::lock::{Lock, LockedPack};
use rein::packs::Manifest;
use rein::{Code, Failure};

use super::args::PackAction;
use super::output::Output;
use crate::kernel::files::names::shown;

pub fn run(kernel: &Kernel, action: &PackAction, out: &Output) -> u8 {
    let result = match action {
        PackAction::Add { source } => add(kernel, source),
        PackAction::Sync => sync(kernel),
        PackAction::Update { name } => update(kernel, name.as_deref()),
        PackAction::Remove { name } => remove(kernel, name),
        PackAction::List => list(kernel),
        PackAction::Verify => verify(kernel),
    };
    match result {
        Ok(value) if out.json => out.success(&value),
        Ok(value) => {
            super::render::packs::result(action, &value);
            0
        }
        Err(failure) => out.failure(&failure),
    }
}

/// `rein pack`, run by a person at the terminal.
fn person() -> Call {
    Call::new().acting_as(Actor::new("rein pack", None))
}

/// The person confirmed this `rein pack` command at the terminal a moment ago; the writes to
/// the project's policy files it makes are theirs.
struct Confirmed;

impl Approver for Confirmed {
    fn answer(&self, _: &ApprovalRequest) -> Answer {
        Answer::Once
    }

    fn name(&self) -> &'static str {
        "person (confirmed `rein pack`)"
    }

    fn is_person(&self) -> bool {
        true
    }
}

/// Writes a policy file (rein.lock, rein.toml) after the person confirmed, and records it in
/// home as the version they approved.
fn write_policy_file(kernel: &Kernel, file: &str, text: &str) -> Result<(), Failure> {
    let scope = kernel.scope();
    // Rewriting a file that holds changes nobody approved would approve them unseen.
    let pending = policy_files::load(scope.workspace(), scope.home())?.pending;
    if !pending.is_empty() {
        return Err(Failure::new(
            Code::ApprovalRequired,
            "rein.toml or rein.lock has changes a person has not approved; review them with `rein approvals policy` first",
        )
        .with_details(json!({"pending": pending})));
    }
    let confirmed = rein::host::configured_kernel(scope.workspace(), scope.home(), Arc::new(Confirmed))?;
    confirmed.write(&person(), file, text.as_bytes(), None)?;
    policy_files::record(scope.workspace(), scope.home(), file, Some(text))
}

fn workspace(kernel: &Kernel) -> &Path {
    kernel.scope().workspace()
}

fn lock_of(kernel: &Kernel) -> Result<Lock, Failure> {
    Lock::load(workspace(kernel)).map_err(|e| Failure::new(Code::InvalidConfig, e.to_string()))
}

/// Installing needs a person at the terminal; without one, nothing is fetched or written.
fn needs_person(what: &str) -> Result<(), Failure> {
    if super::prompt::TerminalPrompt::available() {
        return Ok(());
    }
    Err(Failure::new(
        Code::ApprovalRequired,
        format!("{what} needs a person to confirm it at a terminal; run this command yourself in a terminal"),
    ))
}

fn add(kernel: &Kernel, text: &str) -> Result<serde_json::Value, Failure> {
    let source = Source::parse(text);
    source.check()?;
    needs_person("installing a pack into rein's home")?;
    let recorded = portable(workspace(kernel), &source)?;
    let (mut plan, commit, _checkout) = prepare(kernel, &source, None)?;
    plan.source = recorded;
    if let Some(locked) = lock_of(kernel)?.get(&plan.manifest.name) {
        return Err(Failure::new(
            Code::InvalidArgs,
            format!(
                "pack {} is already in rein.lock (from {}); `rein pack update {}` is the only way to move it",
                locked.name, locked.source, locked.name
            ),
        ));
    }
    confirm(&plan, None)?;
    let dir = install(kernel.scope().home(), &plan)?;
    record(kernel, &plan, commit.clone())?;
    Ok(
        json!({"pack": plan.manifest.name, "version": plan.manifest.version, "source": plan.source, "sha256": plan.sha256, "commit": commit, "installed": dir}),
    )
}

/// The plan for a source: a folder as it is, or a git repository checked out (kept until
/// installed) at its rev, or at exactly `commit`.
fn prepare(
    kernel: &Kernel,
    source: &Source,
    commit: Option<&str>,
) -> Result<(Plan, Option<String>, Option<Fetched>), Failure> {
    if !source.is_git() {
        if source.rev.is_some() {
            return Err(Failure::new(
                Code::InvalidArgs,
                format!("{} is a folder, not a git repository; drop the @rev", source.location),
            ));
        }
        return Ok((plan(Path::new(&source.location))?, None, None));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::new(Code::IoError, e.to_string()))?;
    let wanted = match commit {
        Some(commit) => Wanted::Commit(commit),
        None => Wanted::Rev(source.rev.as_deref()),
    };
    let fetched = runtime.block_on(fetch(kernel, source, wanted))?;
    let plan = plan(&fetched.dir)?;
    Ok((plan, Some(fetched.commit.clone()), Some(fetched)))
}

/// The source as rein.lock and rein.toml record it, the same on every machine: a URL as
/// given, or a folder relative to the workspace.
fn portable(workspace: &Path, source: &Source) -> Result<String, Failure> {
    if source.is_remote() {
        return Ok(source.display());
    }
    let dir = std::fs::canonicalize(&source.location)
        .map_err(|e| Failure::new(Code::InvalidArgs, format!("pack source {}: {e}", source.location)))?;
    let relative = relative_path(workspace, &dir).display().to_string();
    Ok(Source { location: relative, rev: source.rev.clone() }.display())
}

/// A recorded source, with a relative folder resolved against the workspace.
fn located(workspace: &Path, recorded: &str) -> Source {
    let source = Source::parse(recorded);
    if source.is_remote() || Path::new(&source.location).is_absolute() {
        return source;
    }
    Source { location: workspace.join(&source.location).display().to_string(), rev: source.rev }
}

/// `to` relative to `from` (both absolute and canonical), with `..` where needed.
fn relative_path(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut path: PathBuf = from[common..].iter().map(|_| Component::ParentDir).collect();
    path.extend(&to[common..]);
    if path.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        path
    }
}

/// Installs exactly what rein.lock pins (commit and content hash) into this home, for a
/// teammate starting from the lock. Never moves the lock.
fn sync(kernel: &Kernel) -> Result<serde_json::Value, Failure> {
    let lock = lock_of(kernel)?;
    let home = kernel.scope().home();
    let approved = policy_files::load(workspace(kernel), home)?.lock;
    let mut synced = Vec::new();
    let mut confirmed = Vec::new();
    for locked in &lock.packs {
        if let Ok(installed) = verify_one(home, locked) {
            if approved.get(&locked.name) != Some(locked) {
                // Installed for another project, but not yet approved for this one.
                needs_person("using a pack in this project")?;
                super::prompt::confirm(
                    &format!(
                        "Use pack {} {} (sha256 {}) in {}?\n  it may run: {}",
                        locked.name,
                        locked.version,
                        locked.sha256,
                        shown(workspace(kernel)),
                        installed.manifest.permissions.join(", ")
                    ),
                    "using a pack in this project",
                )?;
                confirmed.push(locked.clone());
            }
            synced.push(json!({"pack": locked.name, "sha256": locked.sha256, "installed": false, "reason": "already installed"}));
            continue;
        }
        let source = located(workspace(kernel), &locked.source);
        source.check()?;
        needs_person("installing a pack into rein's home")?;
        let (mut plan, commit, _checkout) = prepare(kernel, &source, locked.commit.as_deref())?;
        if plan.sha256 != locked.sha256 {
            return Err(Failure::new(
                Code::PackTampered,
                format!(
                    "{} does not hold the locked content of pack {} (expected sha256 {}, found {}); nothing was installed. `rein pack update {}` locks what it holds now",
                    locked.source, locked.name, locked.sha256, plan.sha256, locked.name
                ),
            )
            .with_details(json!({"pack": locked.name, "expected_sha256": locked.sha256, "actual_sha256": plan.sha256})));
        }
        plan.source = locked.source.clone();
        confirm(&plan, None)?;
        let dir = install(home, &plan)?;
        confirmed.push(locked.clone());
        synced
            .push(json!({"pack": locked.name, "sha256": plan.sha256, "commit": commit, "installed": true, "dir": dir}));
    }
    // The person said yes to each of these packs as the lock pins them.
    policy_files::approve_lock_entries(workspace(kernel), home, &confirmed)?;
    Ok(json!({"synced": synced}))
}

fn update(kernel: &Kernel, only: Option<&str>) -> Result<serde_json::Value, Failure> {
    let lock = lock_of(kernel)?;
    let mut updated = Vec::new();
    for locked in lock.packs.iter().filter(|p| only.is_none_or(|n| n == p.name)) {
        let source = located(workspace(kernel), &locked.source);
        source.check()?;
        needs_person("installing a pack into rein's home")?;
        let (mut plan, commit, _checkout) = prepare(kernel, &source, None)?;
        plan.source = locked.source.clone();
        let before = Manifest::load(&install_dir(kernel.scope().home(), &locked.name, &locked.sha256)).ok();
        confirm(&plan, Some(before.as_ref().map(|m| m.permissions.as_slice())))?;
        install(kernel.scope().home(), &plan)?;
        record(kernel, &plan, commit.clone())?;
        updated.push(json!({"pack": locked.name, "from": locked.sha256, "to": plan.sha256, "commit": commit}));
    }
    if updated.is_empty() {
        return Err(Failure::new(Code::InvalidArgs, "no such pack in rein.lock; `rein pack list` shows them"));
    }
    Ok(json!({"updated": updated}))
}

/// Shows the plan and its permissions and asks the person to type yes. For an update,
/// `before` holds the permissions installed now (None inside: not installed here), and what
/// is new is marked.
fn confirm(plan: &Plan, before: Option<Option<&[String]>>) -> Result<(), Failure> {
    let m = &plan.manifest;
    let permissions = match before {
        None if m.permissions.is_empty() => "  it may run: (nothing)".to_string(),
        None => format!("  it may run: {}", m.permissions.join(", ")),
        Some(before) => permission_changes(before, &m.permissions),
    };
    let question = format!(
        "{} pack {} {} from {}?\n  {}\n{permissions}\n  sha256 {}",
        if before.is_some() { "Update" } else { "Install" },
        m.name,
        m.version,
        plan.source,
        m.description,
        plan.sha256
    );
    super::prompt::confirm(&question, "installing a pack into rein's home")
}

const BOLD: &str = "\x1b[1m";
const PLAIN: &str = "\x1b[0m";

/// The permissions after an update, each marked: `+` (in bold) what the pack may run now that
/// it could not before, `-` what it no longer may, and the rest unmarked.
pub(crate) fn permission_changes(before: Option<&[String]>, after: &[String]) -> String {
    let Some(before) = before else {
        let all: Vec<String> = after.iter().map(|p| format!("    {BOLD}+ {p}{PLAIN}")).collect();
        return format!(
            "  it may run (the installed version is not in this home, so all are shown as new):\n{}",
            all.join("\n")
        );
    };
    let mut lines = vec!["  it may run (+ new since the installed version, - no longer):".to_string()];
    for permission in after {
        if before.contains(permission) {
            lines.push(format!("      {permission}"));
        } else {
            lines.push(format!("    {BOLD}+ {permission}{PLAIN}"));
        }
    }
    lines.extend(before.iter().filter(|p| !after.contains(p)).map(|p| format!("    - {p}")));
    lines.join("\n")
}

/// rein.lock gets the entry, rein.toml lists the pack.
fn record(kernel: &Kernel, plan: &Plan, commit: Option<String>) -> Result<(), Failure> {
    let mut lock = lock_of(kernel)?;
    lock.upsert(LockedPack {
        name: plan.manifest.name.clone(),
        version: plan.manifest.version.clone(),
        source: plan.source.clone(),
        commit,
        sha256: plan.sha256.clone(),
    });
    write_policy_file(kernel, "rein.lock", &lock.to_toml())?;
    edit_rein_toml(kernel, |packs| {
        packs.insert(&plan.manifest.name, toml_edit::value(plan.source.clone()));
    })
}

fn edit_rein_toml(kernel: &Kernel, change: impl FnOnce(&mut toml_edit::Table)) -> Result<(), Failure> {
    let current = std::fs::read_to_string(workspace(kernel).join("rein.toml")).unwrap_or_default();
    let mut doc: toml_edit::DocumentMut =
        current.parse().map_err(|e| Failure::new(Code::InvalidConfig, format!("rein.toml is not valid: {e}")))?;
    let packs = doc.entry("packs").or_insert(toml_edit::table());
    let Some(packs) = packs.as_table_mut() else {
        return Err(Failure::new(Code::InvalidConfig, "rein.toml: `packs` must be a table"));
    };
    change(packs);
    write_policy_file(kernel, "rein.toml", &doc.to_string())?;
    Ok(())
}

fn remove(kernel: &Kernel, name: &str) -> Result<serde_json::Value, Failure> {
    let mut lock = lock_of(kernel)?;
    if lock.get(name).is_none() {
        return Err(Failure::new(Code::InvalidArgs, format!("no pack {name:?} in rein.lock")));
    }
    lock.packs.retain(|p| p.name != name);
    super::prompt::confirm(
        &format!("Stop using pack {name} in {}?", shown(workspace(kernel))),
        "changing the project's rein.lock",
    )?;
    write_policy_file(kernel, "rein.lock", &lock.to_toml())?;
    edit_rein_toml(kernel, |packs| {
        packs.remove(name);
    })?;
    // The installed copy stays in home (other projects may use it); only a person cleans home.
    Ok(json!({"removed": name}))
}

fn list(kernel: &Kernel) -> Result<serde_json::Value, Failure> {
    Ok(json!({"packs": lock_of(kernel)?.packs}))
}

fn verify(kernel: &Kernel) -> Result<serde_json::Value, Failure> {
    let lock = lock_of(kernel)?;
    let mut results = Vec::new();
    let mut first_failure = None;
    for locked in &lock.packs {
        match verify_one(kernel.scope().home(), locked) {
            Ok(_) => results.push(json!({"pack": locked.name, "ok": true})),
            Err(failure) => {
                results
                    .push(json!({"pack": locked.name, "ok": false, "code": failure.code, "message": failure.message}));
                first_failure.get_or_insert(failure);
            }
        }
    }
    match first_failure {
        Some(failure) => Err(failure.with_details(json!({"packs": results}))),
        None => Ok(json!({"packs": results})),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_sources_walk_up_as_needed() {
        assert_eq!(relative_path(Path::new("/a/b/ws"), Path::new("/a/b/kit")), PathBuf::from("../kit"));
        assert_eq!(relative_path(Path::new("/a/ws"), Path::new("/a/ws/vendor/kit")), PathBuf::from("vendor/kit"));
        assert_eq!(relative_path(Path::new("/a/ws"), Path::new("/a/ws")), PathBuf::from("."));
    }

    #[test]
    fn new_permissions_are_marked_in_bold() {
        let before = vec!["hdc list targets".to_string(), "hvigorw".to_string()];
        let after = vec!["hdc list targets".to_string(), "hdc install".to_string()];
        let shown = permission_changes(Some(&before), &after);
        assert!(shown.contains(&format!("{BOLD}+ hdc install{PLAIN}")), "{shown}");
        assert!(shown.contains("      hdc list targets"), "{shown}");
        assert!(shown.contains("    - hvigorw"), "{shown}");
        assert!(permission_changes(None, &after).contains(&format!("{BOLD}+ hdc list targets{PLAIN}")));
    }
}
