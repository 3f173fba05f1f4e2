//! `rein pack add|sync|update|remove|list|verify`: the library's packs manager at a terminal.
//! Each change is prepared first; the person sees its question, and a yes applies exactly the
//! change they saw.

use serde_json::{json, Value};

use rein::{Code, Failure, Host, PackChange, Packs};

use super::args::PackAction;
use super::output::Output;

pub fn run(host: &Host, action: &PackAction, out: &Output) -> u8 {
    let packs = host.packs();
    let result = match action {
        PackAction::Add { source } => add(&packs, source),
        PackAction::Sync => sync(&packs),
        PackAction::Update { name } => update(&packs, name.as_deref()),
        PackAction::Remove { name } => remove(&packs, name),
        PackAction::List => packs.list().map(|list| json!({"packs": list})),
        PackAction::Verify => verify(&packs),
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

/// Shows the change's question and asks the person to type yes.
fn confirm(change: &PackChange, why_needed: &str) -> Result<(), Failure> {
    super::prompt::confirm(&super::render::packs::question(change.question()), why_needed)
}

const INSTALLING: &str = "installing a pack into rein's home";

fn add(packs: &Packs, source: &str) -> Result<Value, Failure> {
    needs_person(INSTALLING)?;
    let change = packs.plan_add(source)?;
    confirm(&change, INSTALLING)?;
    let applied = packs.apply(change)?;
    let entry = &applied.entry;
    Ok(
        json!({"pack": entry.name, "version": entry.version, "source": entry.source, "sha256": entry.sha256, "commit": entry.commit, "installed": applied.installed}),
    )
}

/// Installs exactly what rein.lock pins (commit and content hash) into this home, for a
/// teammate starting from the lock. Never moves the lock.
fn sync(packs: &Packs) -> Result<Value, Failure> {
    let mut synced = Vec::new();
    let mut waiting = Vec::new();
    for locked in packs.list()? {
        if packs.is_ready(&locked)? {
            synced.push(json!({"pack": locked.name, "sha256": locked.sha256, "installed": false, "reason": "already installed"}));
        } else {
            waiting.push(locked);
        }
    }
    if !waiting.is_empty() && !super::prompt::TerminalPrompt::available() {
        return Err(sync_needs_person(&waiting));
    }
    for locked in waiting {
        let change = packs.plan_install(&locked)?;
        let why = if change.kind() == &rein::PackChangeKind::Use { "using a pack in this project" } else { INSTALLING };
        confirm(&change, why)?;
        let applied = packs.apply(change)?;
        synced.push(match applied.kind {
            rein::PackChangeKind::Use => {
                json!({"pack": locked.name, "sha256": locked.sha256, "installed": false, "reason": "already installed"})
            }
            _ => {
                json!({"pack": locked.name, "sha256": locked.sha256, "commit": locked.commit, "installed": true, "dir": applied.installed})
            }
        });
    }
    Ok(json!({"synced": synced}))
}

/// Headless, `rein pack sync` installs nothing; it says which packs wait, so a CI job can say
/// what a person must run, and where.
fn sync_needs_person(waiting: &[rein::LockedPack]) -> Failure {
    let named: Vec<String> =
        waiting.iter().map(|p| format!("{} {} from {} (sha256 {})", p.name, p.version, p.source, p.sha256)).collect();
    Failure::new(
        Code::ApprovalRequired,
        format!(
            "rein.lock pins {} this rein home does not serve: {}. Installing a pack writes rein's home, so a person confirms it at a terminal: nothing was fetched or installed. A person runs `rein pack sync` in a terminal in this project",
            if waiting.len() == 1 { "a pack" } else { "packs" },
            named.join("; ")
        ),
    )
    .with_details(json!({"packs": waiting, "fix": "rein pack sync"}))
}

fn update(packs: &Packs, only: Option<&str>) -> Result<Value, Failure> {
    let targets: Vec<_> = packs.list()?.into_iter().filter(|p| only.is_none_or(|name| name == p.name)).collect();
    if targets.is_empty() {
        return Err(Failure::new(Code::InvalidArgs, "no such pack in rein.lock; `rein pack list` shows them"));
    }
    let mut updated = Vec::new();
    for locked in targets {
        needs_person(INSTALLING)?;
        let change = packs.plan_update(&locked)?;
        confirm(&change, INSTALLING)?;
        let applied = packs.apply(change)?;
        updated.push(json!({"pack": locked.name, "from": locked.sha256, "to": applied.entry.sha256, "commit": applied.entry.commit}));
    }
    Ok(json!({"updated": updated}))
}

fn remove(packs: &Packs, name: &str) -> Result<Value, Failure> {
    let change = packs.plan_remove(name)?;
    confirm(&change, "changing the project's rein.lock")?;
    packs.apply(change)?;
    // The installed copy stays in home (other projects may use it); only a person cleans home.
    Ok(json!({"removed": name}))
}

fn verify(packs: &Packs) -> Result<Value, Failure> {
    let mut results = Vec::new();
    let mut first_failure = None;
    for check in packs.verify()? {
        match check.problem {
            None => results.push(json!({"pack": check.pack, "ok": true})),
            Some(failure) => {
                results
                    .push(json!({"pack": check.pack, "ok": false, "code": failure.code, "message": failure.message}));
                first_failure.get_or_insert(failure);
            }
        }
    }
    match first_failure {
        Some(failure) => Err(failure.with_details(json!({"packs": results}))),
        None => Ok(json!({"packs": results})),
    }
}
