//! One generation of tools and recipes: a fresh Lua state with everything loaded into it.

use std::sync::Arc;

use serde_json::json;

use super::registry::{self, RecipeEntry, Registry};
use super::sources::Sources;
use crate::error::{Code, Failure};
use crate::kernel::Kernel;
use crate::lua::{Limits, Runtime};

pub struct Generation {
    pub number: u64,
    /// Where this generation's code came from (which packs, at which hashes).
    pub sources: Arc<Sources>,
    pub runtime: Runtime,
    pub registry: Registry,
    /// One call at a time per Lua state.
    pub gate: tokio::sync::Mutex<()>,
}

impl Generation {
    pub fn load(
        kernel: &Arc<Kernel>,
        sources: &Arc<Sources>,
        limits: Limits,
        number: u64,
    ) -> Result<Generation, Failure> {
        let runtime = Runtime::new(kernel.clone(), sources.clone(), sources.natives(), limits)?;
        let registry = registry::load(&runtime, sources);
        Ok(Generation { number, sources: sources.clone(), runtime, registry, gate: tokio::sync::Mutex::new(()) })
    }

    /// The recipe called `name`, by its own name or its MCP name (`recipe_build_verify`).
    pub fn recipe_entry(&self, name: &str) -> Result<&RecipeEntry, Failure> {
        let name = self.registry.recipe_named(name).map_or(name, |r| r.info.name.as_str());
        if let Some(problem) = self.registry.problem_for(name) {
            return Err(Failure::new(
                Code::ToolInvalid,
                format!("recipe {name:?} cannot be used: {problem}. Fix the file; `rein check` lists every problem."),
            ));
        }
        self.registry.recipe_named(name).ok_or_else(|| {
            let known: Vec<&String> = self.registry.recipes.keys().collect();
            let suggestions = crate::error::closest_names(name, known.iter().map(|n| n.as_str()));
            let hint = crate::error::did_you_mean(&suggestions);
            let failure = Failure::new(
                Code::ToolNotFound,
                format!("no recipe named {name:?}.{hint} `rein tools` lists the recipes."),
            )
            .with_details(json!({"recipe": name, "suggestions": suggestions, "available": known}));
            self.explain_not_found(failure, "recipes")
        })
    }

    /// A TOOL_NOT_FOUND explained: a tool or recipe of a pack rein.lock pins that this
    /// generation does not serve (not installed in this home, or not approved for the
    /// project) says to run `rein pack sync`; any other names the files of `folder` that did
    /// not load, since the name may be in one.
    pub fn explain_not_found(&self, failure: Failure, folder: &str) -> Failure {
        if failure.code != Code::ToolNotFound {
            return failure;
        }
        let asked = failure.details.get("tool").or(failure.details.get("recipe")).and_then(|n| n.as_str());
        let pack = asked.and_then(pack_of).filter(|pack| !self.sources.packs().any(|p| &p.name == pack));
        let locked = self.sources.project_root().and_then(|root| crate::packs::lockfile::Lock::load(root).ok());
        match (asked, pack, locked) {
            (Some(name), Some(pack), Some(lock)) if lock.get(&pack).is_some() => Failure::new(
                Code::ToolNotFound,
                format!(
                    "{name:?} comes from pack {pack}, which rein.lock pins but this rein home does not serve (not installed, or not approved for this project yet); a person runs `rein pack sync` at a terminal to install the locked version"
                ),
            )
            .with_details(json!({"name": name, "pack": pack, "fix": "rein pack sync"})),
            _ => self.registry.explain_not_found(failure, folder),
        }
    }
}

/// The pack a tool or recipe name belongs to: `team-kit.greet`, or as MCP names it,
/// `team_kit__greet` and `recipe_team_kit__clean_run`.
fn pack_of(name: &str) -> Option<String> {
    if let Some((pack, _)) = name.split_once('.') {
        return Some(pack.to_string());
    }
    let name = name.strip_prefix("recipe_").unwrap_or(name);
    name.split_once("__").map(|(pack, _)| pack.replace('_', "-"))
}

#[cfg(test)]
mod tests {
    use super::pack_of;

    #[test]
    fn a_name_says_its_pack_in_either_spelling() {
        assert_eq!(pack_of("team-kit.greet").as_deref(), Some("team-kit"));
        assert_eq!(pack_of("team_kit__greet").as_deref(), Some("team-kit"));
        assert_eq!(pack_of("recipe_team_kit__clean_run").as_deref(), Some("team-kit"));
        assert_eq!(pack_of("read_file"), None);
    }
}
