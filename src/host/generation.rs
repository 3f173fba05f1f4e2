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
            self.registry.explain_not_found(failure, "recipes")
        })
    }
}
