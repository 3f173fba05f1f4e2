//! Hot reload guarded by a canary: a changed tool, recipe or prelude file is loaded into a
//! fresh Lua state, its schema validated and its checks run in a scratch workspace; only then
//! does the new generation replace the old. Otherwise the old one keeps serving and the
//! problem (file:line and message) is reported.

use std::sync::Arc;

use serde::Serialize;

use super::sources::Sources;
use super::{Generation, Host};
use crate::error::Failure;

#[derive(Debug, Clone, Serialize)]
pub struct ReloadOutcome {
    /// The generation serving after this reload.
    pub generation: u64,
    pub applied: bool,
    /// Changed files, relative to the project.
    pub files: Vec<String>,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub updated: Vec<String>,
    /// Why the old generation stays: `file:line: message`, or a failing check.
    pub problems: Vec<String>,
}

impl Host {
    /// Reloads after `files` (relative to the project) changed.
    pub fn reload(&self, files: &[String]) -> ReloadOutcome {
        let old = self.generation();
        let mut outcome = ReloadOutcome {
            generation: old.number,
            applied: false,
            files: files.to_vec(),
            added: Vec::new(),
            removed: Vec::new(),
            updated: Vec::new(),
            problems: Vec::new(),
        };
        let sources = match self.sources_after(&old, files) {
            Ok(sources) => sources,
            Err(failure) => {
                outcome.problems.push(format!("rein.lock: {}", failure.message));
                return outcome;
            }
        };
        let candidate = match Generation::load(&self.kernel, &sources, self.limits, old.number + 1) {
            Ok(candidate) => candidate,
            Err(failure) => {
                outcome.problems.push(failure.message);
                return outcome;
            }
        };
        let touches_prelude = files.iter().any(|f| f.starts_with("prelude/") || f == "rein.lock");
        outcome.problems.extend(
            candidate
                .registry
                .problems
                .iter()
                .filter(|p| touches_prelude || files.contains(&p.file))
                .map(|p| p.to_string()),
        );
        diff_names(&old, &candidate, files, &mut outcome);
        if outcome.problems.is_empty() {
            outcome.problems = self.canary_checks(&candidate, files, touches_prelude);
        }
        if outcome.problems.is_empty() {
            outcome.applied = true;
            outcome.generation = candidate.number;
            *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(candidate);
        }
        outcome
    }

    /// The packs of a changed rein.lock (verified), or the same sources as before.
    fn sources_after(&self, old: &Generation, files: &[String]) -> Result<Arc<Sources>, Failure> {
        if !self.packs_follow_lock || !files.iter().any(|f| f == "rein.lock") {
            return Ok(old.sources.clone());
        }
        let scope = self.kernel.scope();
        let mut policy = super::policy_files::load(scope.workspace(), scope.home())?;
        // A reload follows rein.lock; rein.toml is read at start.
        policy.config.overrides = old.sources.overrides().clone();
        Ok(Arc::new(super::builder::locked_sources(&self.kernel, &policy)?))
    }

    /// The checks of every changed tool (of every tool when prelude/ changed).
    fn canary_checks(&self, candidate: &Generation, files: &[String], all: bool) -> Vec<String> {
        let mut problems = Vec::new();
        for tool in candidate.registry.tools.values().filter(|t| all || files.contains(&t.file)) {
            match super::checks::run_tool_checks(&candidate.sources, &tool.name, &tool.checks) {
                Ok(outcomes) => {
                    problems.extend(outcomes.into_iter().filter_map(|o| {
                        o.problem.map(|p| format!("{}: check {} of {}: {p}", tool.file, o.check, o.tool))
                    }))
                }
                Err(failure) => problems.push(format!("{}: {}", tool.file, failure.message)),
            }
        }
        problems
    }
}

fn diff_names(old: &Generation, new: &Generation, files: &[String], outcome: &mut ReloadOutcome) {
    let old_names = old
        .registry
        .tools
        .iter()
        .map(|(n, t)| (n, &t.file))
        .chain(old.registry.recipes.iter().map(|(n, r)| (n, &r.info.file)));
    let new_names: Vec<(&String, &String)> = new
        .registry
        .tools
        .iter()
        .map(|(n, t)| (n, &t.file))
        .chain(new.registry.recipes.iter().map(|(n, r)| (n, &r.info.file)))
        .collect();
    let old_names: Vec<(&String, &String)> = old_names.collect();
    for (name, file) in &new_names {
        match old_names.iter().find(|(n, _)| n == name) {
            None => outcome.added.push(name.to_string()),
            Some(_) if files.contains(file) => outcome.updated.push(name.to_string()),
            Some(_) => {}
        }
    }
    for (name, _) in &old_names {
        if !new_names.iter().any(|(n, _)| n == name) {
            outcome.removed.push(name.to_string());
        }
    }
}
