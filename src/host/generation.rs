//! One generation of tools and recipes: fresh Lua states with everything loaded into them.

use std::sync::{Arc, OnceLock};

use serde_json::json;

use super::loading::Loading;
use super::registry::{self, RecipeEntry, Registry};
use super::sources::Sources;
use crate::error::{Code, Failure};
use crate::kernel::Kernel;
use crate::lua::pool::{Build, Pool};
use crate::lua::{Limits, Runtime};

pub struct Generation {
    pub number: u64,
    /// Where this generation's code came from (which packs, at which hashes).
    pub sources: Arc<Sources>,
    pub registry: Registry,
    /// The Lua states serving it, each with every tool and recipe loaded: calls run side by
    /// side, each on a state of its own.
    pub pool: Pool,
}

impl Generation {
    /// Loads `sources` into a first Lua state (the pool builds up to `states` as calls need
    /// them, each loading the same files).
    pub fn load(
        kernel: &Arc<Kernel>,
        sources: &Arc<Sources>,
        limits: Limits,
        states: usize,
        number: u64,
    ) -> Result<Generation, Failure> {
        let first: Arc<OnceLock<Registry>> = Arc::default();
        let loading: Arc<Loading> = Arc::default();
        let build: Build = {
            let (kernel, sources, first, loading) = (kernel.clone(), sources.clone(), first.clone(), loading.clone());
            Arc::new(move |meter| {
                let mut runtime = Runtime::new(kernel.clone(), sources.clone(), sources.natives(), limits, meter)?;
                let registry = registry::load(&mut runtime, &sources, &loading);
                match first.get() {
                    None => drop(first.set(registry)),
                    Some(expected) if expected.same_definitions(&registry) => {}
                    Some(_) => return Err(loaded_differently()),
                }
                Ok(runtime)
            })
        };
        // A file whose load the watchdog gave a state up in is set aside; a fresh state loads the
        // rest (at most once per file).
        let pool = loop {
            match Pool::start(states, build.clone()) {
                Ok(pool) => break pool,
                Err(failure) if loading.give_up(&failure) => continue,
                Err(failure) => return Err(failure),
            }
        };
        let registry = first.get().cloned().ok_or_else(loaded_differently)?;
        Ok(Generation { number, sources: sources.clone(), registry, pool })
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

fn loaded_differently() -> Failure {
    Failure::new(
        Code::LuaError,
        "a new Lua state did not load the same tools and recipes as the first one of this generation (does a file read files or the clock while it loads?); it is not used. Make tool and recipe files declare the same things every time they load",
    )
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
