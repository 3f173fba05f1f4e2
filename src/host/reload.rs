//! Hot reload, file by file, guarded by a canary. The changed files are loaded into a fresh
//! Lua state with the others; every changed tool, and every tool that requires a changed
//! module, runs its checks in a scratch workspace. A changed file that does not load, breaks
//! a tool that depends on it, or fails a check is kept back: its last good text goes on
//! serving (or it stays absent if it never loaded) while every other changed file goes in.
//! The new generation replaces the old one only when at least one change went in.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use super::dependencies::project_modules;
use super::project_files::{is_code_file, is_top_level_in, read_one};
use super::registry::LoadProblem;
use super::sources::{Origin, PackLayer, Sources};
use super::{Generation, Host};
use crate::kernel::scope::protected::LOCK_FILE;
use crate::kernel::EventKind;
use crate::lua::chunk::Chunk;
use crate::lua::require::check_syntax;

/// What one reload did ([`Host::reload`], or each reload of [`Host::watch`]): which files
/// changed, which tools and recipes came, went or changed, and what was kept back.
#[derive(Debug, Clone, Serialize)]
pub struct ReloadOutcome {
    /// The generation serving after this reload.
    pub generation: u64,
    /// Whether a new generation is serving (at least one change went in).
    pub applied: bool,
    /// Files whose content changed, relative to the project.
    pub files: Vec<String>,
    /// Of those, the ones now served.
    pub loaded: Vec<String>,
    /// Of those, the ones deleted (their tools and recipes are in `removed`).
    pub deleted: Vec<String>,
    /// Tools and recipes served now that were not before.
    pub added: Vec<String>,
    /// Tools and recipes no longer served.
    pub removed: Vec<String>,
    /// Tools and recipes whose definition changed.
    pub updated: Vec<String>,
    /// Changed files kept back, with what serves instead and why.
    pub kept: Vec<KeptFile>,
    /// `file: problem` for each kept file (file:line and message, or a failing check).
    pub problems: Vec<String>,
}

/// A changed file kept back, and what serves instead: the words of the reload events.
pub use crate::kernel::events::{KeptFile, Serving};

/// What the next generation would be made of: the changes still in play.
struct Plan {
    /// New text (None: deleted) by project path.
    changes: BTreeMap<String, Option<String>>,
    /// The packs of a moved rein.lock.
    packs: Option<Vec<PackLayer>>,
}

impl Plan {
    fn is_empty(&self) -> bool {
        self.changes.is_empty() && self.packs.is_none()
    }

    fn sources(&self, old: &Sources) -> Sources {
        let mut files = old.project_files().cloned().unwrap_or_default();
        for (rel, text) in &self.changes {
            files = files.with(rel, text.clone());
        }
        let sources = old.with_project_files(files);
        match &self.packs {
            Some(packs) => sources.with_pack_layers(packs.clone()),
            None => sources,
        }
    }

    /// The changed modules (not tool or recipe files) among `files`.
    fn changed_modules(&self) -> impl Iterator<Item = &String> {
        self.changes.keys().filter(|rel| !is_top_level_in(rel, "tools") && !is_top_level_in(rel, "recipes"))
    }
}

impl Host {
    /// Reloads after `files` (relative to the project) changed on disk. Files outside the
    /// project's code and rein.lock are ignored, and so are files whose text did not change.
    /// A file that does not load is kept back and what served before goes on serving.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let project = tempfile::tempdir()?;
    /// # let home = tempfile::tempdir()?;
    /// std::fs::create_dir(project.path().join("tools"))?;
    /// let host = rein::Host::builder().workspace(project.path())
    /// #   .home(home.path())
    ///     .build()?;
    /// std::fs::write(
    ///     project.path().join("tools/greet.lua"),
    ///     r#"return { name = "greet", description = "says hi", params = {}, run = function() return { text = "hi" } end }"#,
    /// )?;
    /// let outcome = host.reload(&["tools/greet.lua".to_string()]);
    /// assert!(outcome.applied);
    /// assert_eq!(outcome.added, ["greet"]);
    /// assert_eq!(host.call("greet", serde_json::json!({}))?["text"], "hi");
    /// # Ok(())
    /// # }
    /// ```
    pub fn reload(&self, files: &[String]) -> ReloadOutcome {
        let _one_at_a_time = self.reloading.lock().unwrap_or_else(|e| e.into_inner());
        let old = self.generation();
        let mut outcome = ReloadOutcome {
            generation: old.number,
            applied: false,
            files: Vec::new(),
            loaded: Vec::new(),
            deleted: Vec::new(),
            added: Vec::new(),
            removed: Vec::new(),
            updated: Vec::new(),
            kept: Vec::new(),
            problems: Vec::new(),
        };
        let mut plan = self.plan(&old, files, &mut outcome);
        while !plan.is_empty() {
            let sources = Arc::new(plan.sources(&old.sources));
            let candidate = match Generation::load(&self.kernel, &sources, self.limits, self.states, old.number + 1) {
                Ok(candidate) => candidate,
                Err(failure) => {
                    let all: Vec<String> = plan.changes.keys().cloned().collect();
                    revert(&mut plan, &old, &all, &failure.message, &mut outcome);
                    if plan.packs.take().is_some() {
                        keep(&old, LOCK_FILE, failure.message, &mut outcome);
                    }
                    continue;
                }
            };
            let failures = load_failures(&old, &candidate, &plan);
            let failures = if failures.is_empty() { self.check_failures(&candidate, &plan) } else { failures };
            if failures.is_empty() {
                self.swap(&old, candidate, &plan, &mut outcome);
                break;
            }
            let before = (plan.changes.len(), plan.packs.is_some());
            for (blamed, problem) in &failures {
                if blamed.iter().any(|f| f == LOCK_FILE) && plan.packs.take().is_some() {
                    keep(&old, LOCK_FILE, problem.clone(), &mut outcome);
                }
                revert(&mut plan, &old, blamed, problem, &mut outcome);
            }
            if (plan.changes.len(), plan.packs.is_some()) == before {
                // Nothing could be blamed: keep every change back rather than loop.
                let all: Vec<String> = plan.changes.keys().cloned().collect();
                revert(&mut plan, &old, &all, &failures[0].1, &mut outcome);
                plan.packs = None;
            }
        }
        outcome.problems =
            outcome
                .kept
                .iter()
                .map(|k| {
                    if k.problem.starts_with(&k.file) {
                        k.problem.clone()
                    } else {
                        format!("{}: {}", k.file, k.problem)
                    }
                })
                .collect();
        self.tell_reload(&outcome);
        outcome
    }

    /// The subscribers hear a reload that changed something: which generation serves, what
    /// went in, what was kept back and why.
    fn tell_reload(&self, outcome: &ReloadOutcome) {
        if outcome.files.is_empty() {
            return;
        }
        let kept = outcome.kept.clone();
        let kind = if outcome.applied {
            EventKind::ReloadAccepted {
                generation: outcome.generation,
                loaded: outcome.loaded.clone(),
                added: outcome.added.clone(),
                removed: outcome.removed.clone(),
                updated: outcome.updated.clone(),
                kept,
                problems: outcome.problems.clone(),
            }
        } else {
            EventKind::ReloadRejected { generation: outcome.generation, kept, problems: outcome.problems.clone() }
        };
        self.subscribers.tell_kind(kind);
    }

    /// Whether the packs the approved rein.lock pins now are not the ones being served (a
    /// lock that cannot be read counts as changed: reloading says what is wrong).
    pub(super) fn packs_changed(&self) -> bool {
        self.packs_follow_lock
            && match self.approved_packs() {
                Ok((packs, _)) => !same_packs(&packs, &self.generation().sources),
                Err(_) => true,
            }
    }

    /// The packs the approved rein.lock pins now (a change a person has not approved yet
    /// changes nothing).
    fn approved_packs(&self) -> Result<(Vec<PackLayer>, Vec<crate::error::Failure>), crate::error::Failure> {
        let scope = self.kernel.scope();
        let policy = super::policy_files::load(scope.workspace(), scope.home())?;
        super::builder::locked_packs(&self.kernel, &policy.lock, false)
    }

    /// The changes `files` make to what `old` serves.
    fn plan(&self, old: &Generation, files: &[String], outcome: &mut ReloadOutcome) -> Plan {
        let mut plan = Plan { changes: BTreeMap::new(), packs: None };
        let mut files: Vec<&String> = files.iter().collect();
        files.sort();
        files.dedup();
        if self.packs_follow_lock && files.iter().any(|f| *f == LOCK_FILE) {
            outcome.files.push(LOCK_FILE.to_string());
            match self.approved_packs() {
                Ok((packs, _)) if same_packs(&packs, &old.sources) => {
                    outcome.files.pop();
                }
                Ok((packs, _)) => plan.packs = Some(packs),
                Err(failure) => keep(old, LOCK_FILE, failure.message, outcome),
            }
        }
        let (Some(root), Some(current)) = (old.sources.project_root(), old.sources.project_files()) else {
            return plan;
        };
        for rel in files.into_iter().filter(|f| is_code_file(f)) {
            match read_one(root, rel) {
                Ok(text) if text.as_deref() == current.get(rel) => {}
                Ok(text) => {
                    outcome.files.push(rel.clone());
                    plan.changes.insert(rel.clone(), text);
                }
                Err(err) => {
                    outcome.files.push(rel.clone());
                    keep(old, rel, err.to_string(), outcome);
                }
            }
        }
        plan
    }

    /// Runs the checks of every tool a change touches: its file changed, it requires a changed
    /// module, or it comes from a changed pack.
    fn check_failures(&self, candidate: &Generation, plan: &Plan) -> Vec<(Vec<String>, String)> {
        let mut failures = Vec::new();
        for tool in candidate.registry.tools.values() {
            let blamed = touched_by(&candidate.sources, &tool.file, tool.origin, plan);
            if blamed.is_empty() {
                continue;
            }
            let problems = match super::checks::run_tool_checks(&candidate.sources, &tool.name, &tool.checks) {
                Ok(outcomes) => outcomes
                    .into_iter()
                    .filter_map(|o| o.problem.map(|p| format!("check {} of {}: {p}", o.check, o.tool)))
                    .collect(),
                Err(failure) => vec![failure.message],
            };
            failures.extend(problems.into_iter().map(|p| (blamed.clone(), p)));
        }
        failures
    }

    fn swap(&self, old: &Generation, candidate: Generation, plan: &Plan, outcome: &mut ReloadOutcome) {
        let (present, deleted): (Vec<_>, Vec<_>) = plan.changes.iter().partition(|(_, text)| text.is_some());
        outcome.loaded = present.into_iter().map(|(file, _)| file.clone()).collect();
        outcome.deleted = deleted.into_iter().map(|(file, _)| file.clone()).collect();
        if plan.packs.is_some() {
            outcome.loaded.push(LOCK_FILE.to_string());
        }
        let changed: Vec<String> = outcome.loaded.iter().chain(&outcome.deleted).cloned().collect();
        diff_names(old, &candidate, &changed, outcome);
        outcome.applied = true;
        outcome.generation = candidate.number;
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(candidate);
    }
}

/// The changed files `file` (a tool or recipe of `origin`) depends on: itself, the changed
/// modules it requires, or rein.lock for a pack's file when the packs changed.
fn touched_by(sources: &Sources, file: &str, origin: Origin, plan: &Plan) -> Vec<String> {
    if plan.changes.contains_key(file) {
        return vec![file.to_string()];
    }
    if origin == Origin::Pack && plan.packs.is_some() {
        return vec![LOCK_FILE.to_string()];
    }
    let Some(text) = sources.project_files().and_then(|f| f.get(file)) else { return Vec::new() };
    let modules = project_modules(sources, text);
    plan.changed_modules().filter(|m| modules.contains(*m)).cloned().collect()
}

/// The problems of `candidate` a change caused, each with the changes to blame: a changed file
/// that does not compile or load, and a file that loaded before but not now.
fn load_failures(old: &Generation, candidate: &Generation, plan: &Plan) -> Vec<(Vec<String>, String)> {
    let mut failures = Vec::new();
    // A module with a syntax error is blamed directly, with its own file:line.
    for rel in plan.changed_modules() {
        let Some(Some(text)) = plan.changes.get(rel) else { continue };
        let chunk = Chunk { label: rel.clone(), text: text.as_str().into() };
        if let Err(failure) = check_syntax(&chunk) {
            failures.push((vec![rel.clone()], failure.message));
        }
    }
    for problem in &candidate.registry.problems {
        let changed_here = plan.changes.contains_key(&problem.file)
            || problem.clash_with.as_ref().is_some_and(|f| plan.changes.contains_key(f));
        let broken_before = old.registry.problems.iter().any(|p| p.file == problem.file);
        if !changed_here && broken_before {
            continue;
        }
        // `file:line: message`, as the kept file's problem says it.
        failures.push((blame(candidate, problem, plan), problem.to_string()));
    }
    failures
}

/// The changes to blame for `problem`: the changed files it names, else the changed modules the
/// broken file requires, else a changed rein.lock for a pack's file, else every change.
fn blame(candidate: &Generation, problem: &LoadProblem, plan: &Plan) -> Vec<String> {
    let named: Vec<String> = std::iter::once(&problem.file)
        .chain(problem.clash_with.as_ref())
        .filter(|f| plan.changes.contains_key(*f))
        .cloned()
        .collect();
    if !named.is_empty() {
        return named;
    }
    let origin = if candidate.sources.project_files().is_some_and(|f| f.get(&problem.file).is_some()) {
        Origin::Project
    } else {
        Origin::Pack
    };
    let touched = touched_by(&candidate.sources, &problem.file, origin, plan);
    if !touched.is_empty() {
        return touched;
    }
    let mut all: Vec<String> = plan.changes.keys().cloned().collect();
    if plan.packs.is_some() {
        all.push(LOCK_FILE.to_string());
    }
    all
}

/// Takes the changes to `files` out of `plan`, noting each as kept for `problem`.
fn revert(plan: &mut Plan, old: &Generation, files: &[String], problem: &str, outcome: &mut ReloadOutcome) {
    for file in files {
        if plan.changes.remove(file).is_some() {
            keep(old, file, problem.to_string(), outcome);
        }
    }
}

fn keep(old: &Generation, file: &str, problem: String, outcome: &mut ReloadOutcome) {
    if outcome.kept.iter().any(|k| k.file == file) {
        return;
    }
    let served_before = file == LOCK_FILE
        || old.sources.project_files().is_some_and(|f| f.get(file).is_some())
            && !old.registry.problems.iter().any(|p| p.file == file);
    let serving = if served_before { Serving::PreviousVersion } else { Serving::Nothing };
    outcome.kept.push(KeptFile { file: file.to_string(), serving, problem });
}

fn same_packs(packs: &[PackLayer], sources: &Sources) -> bool {
    let now: Vec<(&str, &std::path::Path)> = packs.iter().map(|p| (p.name.as_str(), p.root.as_path())).collect();
    let before: Vec<(&str, &std::path::Path)> = sources.packs().map(|p| (p.name.as_str(), p.root.as_path())).collect();
    now == before
}

fn diff_names(old: &Generation, new: &Generation, files: &[String], outcome: &mut ReloadOutcome) {
    let names = |g: &Generation| -> Vec<(String, String, Origin)> {
        g.registry
            .tools
            .iter()
            .map(|(n, t)| (n.clone(), t.file.clone(), t.origin))
            .chain(g.registry.recipes.iter().map(|(n, r)| (n.clone(), r.info.file.clone(), r.info.origin)))
            .collect()
    };
    let (old_names, new_names) = (names(old), names(new));
    let packs_moved = files.iter().any(|f| f == LOCK_FILE);
    for (name, file, origin) in &new_names {
        match old_names.iter().find(|(n, _, _)| n == name) {
            None => outcome.added.push(name.clone()),
            Some((_, old_file, _))
                if files.contains(file) || old_file != file || (packs_moved && *origin == Origin::Pack) =>
            {
                outcome.updated.push(name.clone())
            }
            Some(_) => {}
        }
    }
    for (name, _, _) in &old_names {
        if !new_names.iter().any(|(n, _, _)| n == name) {
            outcome.removed.push(name.clone());
        }
    }
}
