//! A recipe as a Lua file declares it:
//!
//! ```lua
//! return {
//!   name = "build-verify", description = "...", params = { ... },
//!   budget = { time_s = 1800, spawns = 20 },          -- optional
//!   steps = {
//!     { name = "build", description = "...", run = function(ctx) ... end,
//!       verify = function(ctx, out) return out.ok, "BUILD SUCCESSFUL" end, -- optional
//!       retry = { max = 2 }, timeout_s = 900 },                      -- optional
//!   },
//! }
//! ```

use mlua::{Function, Lua, Table, Value};
use serde_json::json;

use crate::error::{Code, Failure};
use crate::lua::declaration::{only_fields, optional, required, wrong, SpecError};
use crate::lua::schema::Params;
use crate::lua::tool::parse_params;

/// A step as data (what `--explain` shows and the engine schedules); its functions are in the
/// [`RecipeCode`] of the Lua state that loaded it.
#[derive(Debug, Clone)]
pub struct StepSpec {
    pub name: String,
    /// What the step checks or does, for `--explain` (a preflight says what it checks).
    pub description: Option<String>,
    /// Whether it declares a `verify`.
    pub verified: bool,
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
    /// What it says about its effects (MCP's tool annotations).
    pub annotations: crate::lua::annotations::Annotations,
}

/// A step's functions, in the Lua state that loaded its recipe.
#[derive(Debug, Clone)]
pub struct StepCode {
    pub run: Function,
    pub verify: Option<Function>,
}

/// A recipe's functions, step by step, in the Lua state that loaded it.
#[derive(Debug, Clone)]
pub struct RecipeCode {
    pub steps: Vec<StepCode>,
}

/// The recipes' functions of one Lua state, by recipe name (the state's app data).
#[derive(Debug, Clone, Default)]
pub struct RecipeCodes(pub std::collections::HashMap<String, RecipeCode>);

pub const RECIPE_FIELDS: [&str; 7] = ["name", "description", "params", "budget", "steps", "checks", "annotations"];
pub const STEP_FIELDS: [&str; 7] = ["name", "description", "run", "verify", "retry", "timeout_s", "approvals"];

pub fn parse_recipe(lua: &Lua, value: Value) -> Result<(RecipeSpec, RecipeCode), SpecError> {
    let Value::Table(table) = value else {
        let shape = "{ name, description, steps }";
        return Err(SpecError::NotATable { kind: "recipe", shape, got: value.type_name() });
    };
    only_fields(&table, &RECIPE_FIELDS, "recipe")?;
    let name: String = required(&table, "the recipe", "name", "a string like \"build-verify\"")?;
    if !valid_recipe_name(&name) {
        return Err(SpecError::BadName { kind: "recipe", name, rule: "lowercase letters, digits, - and _" });
    }
    let what = format!("recipe {name}");
    let description: String = required(&table, &what, "description", "a string")?;
    let params = parse_params(lua, optional(&table, &what, "params", "a table of parameters")?, &what)?;
    let budget = match optional::<Option<Table>>(&table, &what, "budget", "a table { time_s, spawns }")? {
        None => Budget::default(),
        Some(t) => Budget {
            time_s: optional(&t, &format!("{what}: budget"), "time_s", "an integer")?,
            spawns: optional(&t, &format!("{what}: budget"), "spawns", "an integer")?,
        },
    };
    let steps_table: Table = required(&table, &what, "steps", "a list of steps")?;
    let (mut steps, mut code) = (Vec::new(), Vec::new());
    for (i, step) in steps_table.sequence_values::<Table>().enumerate() {
        let step = step.map_err(|_| wrong(&what, &format!("step {}", i + 1), "a table"))?;
        let (spec, functions) = parse_step(&step, &name, i + 1)?;
        steps.push(spec);
        code.push(functions);
    }
    if steps.is_empty() {
        return Err(SpecError::NoSteps { recipe: name });
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(dup) = steps.iter().find(|s| !seen.insert(s.name.clone())) {
        return Err(SpecError::DuplicateStep { recipe: name, step: dup.name.clone() });
    }
    let annotations =
        crate::lua::annotations::parse(lua, table.get::<Value>("annotations").unwrap_or(Value::Nil), &what)?;
    Ok((RecipeSpec { name, description, params, budget, steps, annotations }, RecipeCode { steps: code }))
}

fn parse_step(step: &Table, recipe: &str, number: usize) -> Result<(StepSpec, StepCode), SpecError> {
    only_fields(step, &STEP_FIELDS, &format!("recipe {recipe}, step {number}"))?;
    let name: String = required(step, &format!("recipe {recipe}: step {number}"), "name", "a string")?;
    let what = format!("recipe {recipe}: step {name}");
    let description: Option<String> = optional(step, &what, "description", "a string")?;
    let run: Function = required(step, &what, "run", "function(ctx)")?;
    let verify: Option<Function> = optional(step, &what, "verify", "function(ctx, out) returning ok, evidence")?;
    let retry_max = match optional::<Option<Table>>(step, &what, "retry", "{ max = N }")? {
        None => 0,
        Some(t) => required(&t, &format!("{what}: retry"), "max", "an integer (retry = { max = N })")?,
    };
    let timeout_s: Option<u64> = optional(step, &what, "timeout_s", "an integer")?;
    let approvals: Option<Vec<String>> = optional(step, &what, "approvals", "a list of strings")?;
    let approvals = approvals.unwrap_or_default();
    let spec = StepSpec { name, description, verified: verify.is_some(), retry_max, timeout_s, approvals };
    Ok((spec, StepCode { run, verify }))
}

pub fn valid_recipe_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

/// What a step's `verify` returned, read by its one contract: `return ok, evidence` — `ok` a
/// boolean, `evidence` an optional string: what proves the step worked (kept in the report),
/// or when `ok` is false, why it did not.
pub fn read_verdict(step: &str, values: Vec<serde_json::Value>) -> Result<Option<String>, Failure> {
    use serde_json::Value as J;
    let mut values = values.into_iter();
    let ok = values.next().unwrap_or(J::Null);
    let said = match values.next() {
        None | Some(J::Null) => None,
        Some(J::String(text)) => Some(text),
        Some(other) => {
            let message = format!(
                "step {step}: verify's second value must be evidence text, not {other}; return ok, \"what proves it\""
            );
            return Err(Failure::new(Code::VerifyFailed, message));
        }
    };
    match ok {
        J::Bool(true) => Ok(said),
        J::Bool(false) => {
            let why = said.as_ref().map(|s| format!(": {s}")).unwrap_or_default();
            Err(Failure::new(Code::VerifyFailed, format!("step {step} ran but its verify did not pass{why}"))
                .with_details(json!({"verify_said": said})))
        }
        other => {
            let message = format!(
                "step {step}: verify must return a boolean (and evidence text), not {other}; return ok, \"what proves it\""
            );
            Err(Failure::new(Code::VerifyFailed, message).with_details(json!({"verify_returned": other})))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn verify_returns_ok_and_optional_evidence() {
        assert_eq!(read_verdict("s", vec![json!(true)]).unwrap(), None);
        assert_eq!(
            read_verdict("s", vec![json!(true), json!("BUILD SUCCESSFUL")]).unwrap().as_deref(),
            Some("BUILD SUCCESSFUL")
        );
        let failed = read_verdict("s", vec![json!(false), json!("no .hap")]).unwrap_err();
        assert_eq!(failed.code, Code::VerifyFailed);
        assert!(failed.message.ends_with(": no .hap"), "{}", failed.message);
        for wrong in [vec![], vec![json!("evidence alone")], vec![json!({"ok": true})], vec![json!(true), json!(1)]] {
            assert_eq!(read_verdict("s", wrong.clone()).unwrap_err().code, Code::VerifyFailed, "{wrong:?}");
        }
    }
}
