//! Finds the tools of every layer, loads them into a runtime, and decides which definition
//! of a name wins: a later layer overrides an earlier one; two files of one layer defining the
//! same name is an error naming both.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::lua::runtime::{CallableTool, Runtime, ToolTable};
use crate::sources::{Origin, SourceFile, Sources};

/// A tool as `rein tools` and MCP clients see it.
#[derive(Debug, Clone, Serialize)]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
    pub origin: Origin,
    pub file: String,
    /// The file of a lower layer this tool replaces, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overrides: Option<String>,
    pub schema: serde_json::Value,
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    pub checks: serde_json::Value,
}

/// A file that did not give a usable tool.
#[derive(Debug, Clone, Serialize)]
pub struct LoadProblem {
    pub file: String,
    /// The tool name concerned, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    pub message: String,
}

#[derive(Debug, Clone, Default)]
pub struct Registry {
    pub tools: BTreeMap<String, ToolInfo>,
    pub problems: Vec<LoadProblem>,
}

struct Loaded {
    info: ToolInfo,
    callable: CallableTool,
}

/// Loads every tool file of `sources` into `runtime` and installs the winners.
pub fn load(runtime: &Runtime, sources: &Sources) -> Registry {
    let mut registry = Registry::default();
    let files = match sources.tool_files() {
        Ok(files) => files,
        Err(message) => {
            registry.problems.push(LoadProblem { file: "tools/".into(), tool: None, message });
            return registry;
        }
    };
    let mut winners: BTreeMap<String, Loaded> = BTreeMap::new();
    let mut broken: BTreeMap<String, LoadProblem> = BTreeMap::new();
    for file in &files {
        let loaded = match load_one(runtime, file) {
            Ok(loaded) => loaded,
            Err(problem) => {
                registry.problems.push(problem);
                continue;
            }
        };
        let name = loaded.info.name.clone();
        match winners.get(&name) {
            Some(previous) if previous.info.origin == file.origin => {
                let message = format!(
                    "tool {name:?} is defined twice in the {} layer: {} and {}; rename or remove one",
                    file.origin, previous.info.file, file.label
                );
                broken.insert(name.clone(), LoadProblem { file: file.label.clone(), tool: Some(name), message });
            }
            previous => {
                let mut loaded = loaded;
                loaded.info.overrides = previous.map(|p| p.info.file.clone());
                broken.remove(&name);
                winners.insert(name, loaded);
            }
        }
    }
    for (name, problem) in broken {
        winners.remove(&name);
        registry.problems.push(problem);
    }
    let mut table = ToolTable::default();
    for (name, loaded) in winners {
        table.0.insert(name.clone(), loaded.callable);
        registry.tools.insert(name, loaded.info);
    }
    runtime.set_tools(table);
    registry
}

fn load_one(runtime: &Runtime, file: &SourceFile) -> Result<Loaded, LoadProblem> {
    // A broken file is blamed on the tool its file name suggests, so calling that tool
    // reports the breakage instead of silently running an older definition.
    let stem = file.rel.rsplit('/').next().and_then(|n| n.strip_suffix(".lua")).map(str::to_string);
    let spec =
        runtime.load_tool(file).map_err(|message| LoadProblem { file: file.label.clone(), tool: stem, message })?;
    let info = ToolInfo {
        name: spec.name.clone(),
        description: spec.description.clone(),
        origin: file.origin,
        file: file.label.clone(),
        overrides: None,
        schema: spec.params.json_schema(),
        checks: spec.checks.clone(),
    };
    let callable = CallableTool { name: spec.name, params: spec.params, run: spec.run };
    Ok(Loaded { info, callable })
}

impl Registry {
    /// The problem that makes `name` unusable, if its definition failed.
    pub fn problem_for(&self, name: &str) -> Option<&LoadProblem> {
        self.problems.iter().find(|p| p.tool.as_deref() == Some(name))
    }
}
