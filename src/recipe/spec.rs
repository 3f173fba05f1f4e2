//! A recipe as a Lua file declares it:
//!
//! ```lua
//! return {
//!   name = "build-verify", description = "...", params = { ... },
//!   budget = { time_s = 1800, spawns = 20 },          -- optional
//!   steps = {
//!     { name = "build", run = function(ctx) ... end,
//!       verify = function(ctx, out) return out.ok, "evidence" end,   -- optional
//!       retry = { max = 2 }, timeout_s = 900 },                      -- optional
//!   },
//! }
//! ```

use std::collections::BTreeMap;

use mlua::{Function, Lua, LuaSerdeExt, Table, Value};

use crate::lua::schema::{Param, Params};

#[derive(Debug, Clone)]
pub struct StepSpec {
    pub name: String,
    pub run: Function,
    pub verify: Option<Function>,
    /// Extra attempts after the first.
    pub retry_max: u32,
    pub timeout_s: Option<u64>,
    /// What the step may ask a person for (shown by `--explain`), e.g. "hdc install".
    pub approvals: Vec<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Budget {
    pub time_s: Option<u64>,
    pub spawns: Option<u64>,
}

#[derive(Debug, Clone)]
pub struct RecipeSpec {
    pub name: String,
    pub description: String,
    pub params: Params,
    pub budget: Budget,
    pub steps: Vec<StepSpec>,
}

const RECIPE_FIELDS: [&str; 6] = ["name", "description", "params", "budget", "steps", "checks"];
const STEP_FIELDS: [&str; 6] = ["name", "run", "verify", "retry", "timeout_s", "approvals"];

pub fn parse_recipe(lua: &Lua, value: Value) -> Result<RecipeSpec, String> {
    let Value::Table(table) = value else {
        return Err(format!(
            "a recipe file must return a table {{ name, description, steps }}, not {}",
            value.type_name()
        ));
    };
    only_fields(&table, &RECIPE_FIELDS, "recipe")?;
    let name: String = table.get("name").map_err(|_| "the recipe has no `name` string".to_string())?;
    if !valid_recipe_name(&name) {
        return Err(format!("recipe name {name:?} must be lowercase letters, digits, - and _"));
    }
    let description: String =
        table.get("description").map_err(|_| format!("recipe {name}: `description` must be a string"))?;
    let params = match table.get::<Value>("params").map_err(|e| e.to_string())? {
        Value::Nil => Params::default(),
        value => {
            let fields: BTreeMap<String, Param> =
                lua.from_value(value).map_err(|e| format!("recipe {name}: params are not a valid schema: {e}"))?;
            Params::from_fields(fields).map_err(|e| format!("recipe {name}: {e}"))?
        }
    };
    let budget = match table.get::<Value>("budget").map_err(|e| e.to_string())? {
        Value::Nil => Budget::default(),
        Value::Table(t) => Budget {
            time_s: t.get("time_s").map_err(|_| format!("recipe {name}: budget.time_s must be an integer"))?,
            spawns: t.get("spawns").map_err(|_| format!("recipe {name}: budget.spawns must be an integer"))?,
        },
        _ => return Err(format!("recipe {name}: budget must be a table {{ time_s, spawns }}")),
    };
    let steps_table: Table =
        table.get("steps").map_err(|_| format!("recipe {name}: `steps` must be a list of steps"))?;
    let mut steps = Vec::new();
    for (i, step) in steps_table.sequence_values::<Table>().enumerate() {
        let step = step.map_err(|_| format!("recipe {name}: step {} must be a table", i + 1))?;
        steps.push(parse_step(&step, &name, i + 1)?);
    }
    if steps.is_empty() {
        return Err(format!("recipe {name} has no steps"));
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(dup) = steps.iter().find(|s| !seen.insert(s.name.clone())) {
        return Err(format!("recipe {name}: two steps are named {:?}; step names must be unique", dup.name));
    }
    Ok(RecipeSpec { name, description, params, budget, steps })
}

fn parse_step(step: &Table, recipe: &str, number: usize) -> Result<StepSpec, String> {
    only_fields(step, &STEP_FIELDS, &format!("recipe {recipe}, step {number}"))?;
    let name: String = step.get("name").map_err(|_| format!("recipe {recipe}: step {number} needs a `name`"))?;
    let run: Function =
        step.get("run").map_err(|_| format!("recipe {recipe}: step {name} needs `run = function(ctx)`"))?;
    let verify: Option<Function> =
        step.get("verify").map_err(|_| format!("recipe {recipe}: step {name}: `verify` must be a function"))?;
    let retry_max = match step.get::<Value>("retry").map_err(|e| e.to_string())? {
        Value::Nil => 0,
        Value::Table(t) => {
            t.get::<u32>("max").map_err(|_| format!("recipe {recipe}: step {name}: retry = {{ max = N }}"))?
        }
        _ => return Err(format!("recipe {recipe}: step {name}: retry = {{ max = N }}")),
    };
    let timeout_s: Option<u64> =
        step.get("timeout_s").map_err(|_| format!("recipe {recipe}: step {name}: timeout_s must be an integer"))?;
    let approvals: Option<Vec<String>> = step
        .get("approvals")
        .map_err(|_| format!("recipe {recipe}: step {name}: approvals must be a list of strings"))?;
    Ok(StepSpec { name, run, verify, retry_max, timeout_s, approvals: approvals.unwrap_or_default() })
}

fn only_fields(table: &Table, allowed: &[&str], what: &str) -> Result<(), String> {
    for pair in table.pairs::<Value, Value>() {
        let (key, _) = pair.map_err(|e| e.to_string())?;
        let ok = matches!(&key, Value::String(s) if allowed.iter().any(|a| s.as_bytes() == a.as_bytes()));
        if !ok {
            let shown = match &key {
                Value::String(s) => s.to_string_lossy(),
                other => format!("{other:?}"),
            };
            return Err(format!("{what}: unknown field `{shown}`; allowed: {}", allowed.join(", ")));
        }
    }
    Ok(())
}

pub fn valid_recipe_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}
