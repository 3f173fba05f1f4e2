//! `rein pack add|remove|list|update|verify`. Installing writes rein's home, so a person
//! confirms it at the terminal after seeing the pack's permissions.

use std::path::Path;

use serde_json::json;

use std::sync::Arc;

use rein::host::policy_files;
use rein::kernel::policy::{Answer, ApprovalRequest, Approver};
use rein::kernel::{Actor, Call, Kernel};
use rein::packs::git::{fetch, Fetched, Source};
use rein::packs::install::{install, plan, Plan};
use rein::packs::installed::verify_one;
use rein::packs::lock::{Lock, LockedPack};
use rein::{Code, Failure};

use super::args::PackAction;
use super::output::Output;

pub fn run(kernel: &Kernel, action: &PackAction, out: &Output) -> u8 {
    let result = match action {
        PackAction::Add { source } => add(kernel, Path::new(source)),
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

fn add(kernel: &Kernel, source: &Path) -> Result<serde_json::Value, Failure> {
    let source = Source::parse(&source.to_string_lossy());
    let (plan, commit, _checkout) = prepare(kernel, &source)?;
    if let Some(locked) = lock_of(kernel)?.get(&plan.manifest.name) {
        return Err(Failure::new(
            Code::InvalidArgs,
            format!(
                "pack {} is already in rein.lock (from {}); `rein pack update {}` is the only way to move it",
                locked.name, locked.source, locked.name
            ),
        ));
    }
    confirm(&plan)?;
    let dir = install(kernel.scope().home(), &plan)?;
    record(kernel, &plan, commit.clone())?;
    Ok(
        json!({"pack": plan.manifest.name, "version": plan.manifest.version, "sha256": plan.sha256, "commit": commit, "installed": dir}),
    )
}

/// The plan for a source: a folder as it is, or a git repository checked out through the
/// kernel (kept until installed).
fn prepare(kernel: &Kernel, source: &Source) -> Result<(Plan, Option<String>, Option<Fetched>), Failure> {
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
    let fetched = runtime.block_on(fetch(kernel, source))?;
    let mut plan = plan(&fetched.dir)?;
    plan.source = source.display();
    Ok((plan, Some(fetched.commit.clone()), Some(fetched)))
}

fn update(kernel: &Kernel, only: Option<&str>) -> Result<serde_json::Value, Failure> {
    let lock = lock_of(kernel)?;
    let mut updated = Vec::new();
    for locked in lock.packs.iter().filter(|p| only.is_none_or(|n| n == p.name)) {
        let (plan, commit, _checkout) = prepare(kernel, &Source::parse(&locked.source))?;
        confirm(&plan)?;
        install(kernel.scope().home(), &plan)?;
        record(kernel, &plan, commit.clone())?;
        updated.push(json!({"pack": locked.name, "from": locked.sha256, "to": plan.sha256, "commit": commit}));
    }
    if updated.is_empty() {
        return Err(Failure::new(Code::InvalidArgs, "no such pack in rein.lock; `rein pack list` shows them"));
    }
    Ok(json!({"updated": updated}))
}

fn confirm(plan: &Plan) -> Result<(), Failure> {
    let m = &plan.manifest;
    let permissions = if m.permissions.is_empty() { "(none)".to_string() } else { m.permissions.join(", ") };
    let question = format!(
        "Install pack {} {} from {}?\n  {}\n  it may run: {permissions}\n  sha256 {}",
        m.name, m.version, plan.source, m.description, plan.sha256
    );
    super::prompt::confirm(&question, "installing a pack into rein's home")
}

/// rein.lock gets the entry, rein.toml lists the pack; both through the kernel (journaled).
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
        &format!("Stop using pack {name} in {}?", workspace(kernel).display()),
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
