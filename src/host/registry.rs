//! Finds the tools and recipes of every layer, loads them into a runtime, and decides which
//! definition of a name wins: a later layer overrides an earlier one; two files of one layer
//! defining the same name is an error naming both.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use super::declared_names::{declared_name, declares};
use super::loading::Loading;
use super::project_files::SourceError;
use super::sources::{Origin, SourceFile, Sources};
use crate::error::{Code, Failure};
use crate::kernel::policy::{Headless, Restriction};
use crate::kernel::{Actor, Call};
use crate::lua::annotations::Annotations;
use crate::lua::schema::Params;
use crate::lua::tool::parse_tool;
use crate::lua::{CallableTool, Runtime, ToolTable};
use crate::recipe::spec::{parse_recipe, RecipeCode, RecipeCodes, RecipeSpec};

/// A tool or recipe as `rein tools` and MCP clients see it.
#[derive(Debug, Clone, Serialize)]
pub struct ToolInfo {
    /// As the CLI and `rein.tool` call it: `read_file`, `team-kit.greet`, `build-verify`.
    pub name: String,
    /// As MCP clients see it: `read_file`, `team_kit__greet`, `recipe_build_verify`.
    pub mcp_name: String,
    /// What it does, for agents and people.
    pub description: String,
    /// Which layer it comes from.
    pub origin: Origin,
    /// The file that defines it: `tools/x.lua` in the project, `<built-in>/tools/x.lua`,
    /// `team-kit/tools/x.lua` in a pack.
    pub file: String,
    /// The file of a lower layer this definition replaces, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overrides: Option<String>,
    /// Where that replaced definition came from (a project recipe named like a built-in one:
    /// `built-in`), so whoever lists or runs it is told.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overrides_origin: Option<Origin>,
    /// Its parameters as a JSON Schema object (what MCP clients get as `inputSchema`).
    pub schema: serde_json::Value,
    /// The checks it declares (`rein test`), as written; `null` when none.
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    pub checks: serde_json::Value,
    /// What it says about its effects, as MCP clients get them (`annotations`).
    #[serde(skip_serializing_if = "Annotations::is_empty")]
    pub annotations: Annotations,
}

/// A file that did not give a usable tool or recipe.
#[derive(Debug, Clone, Serialize)]
pub struct LoadProblem {
    /// The file, as [`ToolInfo::file`] names files.
    pub file: String,
    /// Where in the file, when rein can tell (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The name concerned, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// What is wrong, and what to do.
    pub message: String,
    /// The other file of a clash (two definitions of one name), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clash_with: Option<String>,
}

impl LoadProblem {
    pub(crate) fn new(file: impl Into<String>, tool: Option<String>, message: impl Into<String>) -> LoadProblem {
        LoadProblem { file: file.into(), line: None, tool, message: message.into(), clash_with: None }
    }
}

impl std::fmt::Display for LoadProblem {
    /// `tools/x.lua:7: message`, as compilers say it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

#[derive(Debug, Clone)]
pub struct RecipeEntry {
    pub info: ToolInfo,
    pub spec: RecipeSpec,
    /// Who acts while it runs: the recipe, and its pack.
    pub actor: Actor,
}

#[derive(Debug, Clone, Default)]
pub struct Registry {
    pub tools: BTreeMap<String, ToolInfo>,
    pub recipes: BTreeMap<String, RecipeEntry>,
    pub problems: Vec<LoadProblem>,
}

/// One loaded declaration: what people see, and what runs.
struct Loaded<T> {
    info: ToolInfo,
    value: T,
}

/// Loads every tool and recipe of `sources` into `runtime` and installs the winners there
/// (their functions stay in that state; the registry holds what everyone may read).
pub fn load(runtime: &mut Runtime, sources: &Sources, loading: &Loading) -> Registry {
    let mut registry = Registry::default();
    for (file, module) in sources.project_modules_named_like_built_ins() {
        registry.problems.push(LoadProblem::new(
            file,
            None,
            format!(
                "module {module} is rein's own (built-in tools parse the toolchain's output with it); a project module may not replace it, so every tool gets the built-in one. Rename this file (e.g. prelude/<your-project>/{}.lua) and require that name",
                module.rsplit('.').next().unwrap_or(&module)
            ),
        ));
    }
    let (tools, replaced_built_ins) = layered(sources.tool_files(), "tools/", &mut registry.problems, |file| {
        load_tool(runtime, sources, loading, file)
    });
    let mut table = ToolTable::default();
    for (name, loaded) in replaced_built_ins {
        table.for_rein.insert(name, loaded.value);
    }
    for (name, loaded) in tools {
        if loaded.info.origin.is_reins_own() {
            table.for_rein.insert(name.clone(), loaded.value.clone());
        }
        table.served.insert(name.clone(), loaded.value);
        registry.tools.insert(name, loaded.info);
    }
    apply_overrides(sources, &mut table, &mut registry);
    // Recipe files may call tools while they load.
    runtime.set_tools(table.clone());
    let (recipes, _) = layered(sources.recipe_files(), "recipes/", &mut registry.problems, |file| {
        load_recipe(runtime, sources, loading, file)
    });
    let mut codes = RecipeCodes::default();
    for (name, loaded) in recipes {
        let (spec, code, actor) = loaded.value;
        codes.0.insert(name.clone(), code);
        registry.recipes.insert(name, RecipeEntry { info: loaded.info, spec, actor });
    }
    assign_mcp_names(&mut registry, &mut table);
    codes.0.retain(|name, _| registry.recipes.contains_key(name));
    runtime.set_tools(table);
    runtime.lua().set_app_data(codes);
    registry
}

/// The longest name MCP clients accept (Claude, Codex: `^[a-zA-Z0-9_-]{1,64}$`).
pub const MCP_NAME_MAX: usize = 64;

/// The stable MCP name of a tool (`kind` Tool) or recipe: `.` (between a pack and its tool)
/// becomes `__`, `-` becomes `_`, and recipes get the prefix `recipe_`. So `team-kit.greet`
/// is `team_kit__greet` and the recipe `team-kit.clean-run` is `recipe_team_kit__clean_run`.
pub fn mcp_name(name: &str, recipe: bool) -> String {
    let mapped = name.replace('-', "_").replace('.', "__");
    if recipe {
        format!("recipe_{mapped}")
    } else {
        mapped
    }
}

pub fn valid_mcp_name(name: &str) -> bool {
    (1..=MCP_NAME_MAX).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Gives every tool and recipe its MCP name. A name too long for MCP, or one that another
/// tool or recipe of an earlier layer (or, in one layer, a tool before a recipe, then by name)
/// already maps to, is a load problem: that definition is not served.
fn assign_mcp_names(registry: &mut Registry, table: &mut ToolTable) {
    let mut taken: BTreeMap<String, String> = BTreeMap::new();
    let mut refused: Vec<(String, bool, LoadProblem)> = Vec::new();
    let tools = registry.tools.values_mut().map(|info| (info, false));
    let recipes = registry.recipes.values_mut().map(|entry| (&mut entry.info, true));
    // The earlier layer keeps a name: a project tool called `recipe_sign_install_launch` must not
    // take that name from rein's recipe (an agent's call of the recipe would run the tool).
    let mut all: Vec<(&mut ToolInfo, bool)> = tools.chain(recipes).collect();
    all.sort_by_key(|(info, _)| info.origin);
    for (info, recipe) in all {
        let mapped = mcp_name(&info.name, recipe);
        let problem = if !valid_mcp_name(&mapped) {
            Some(LoadProblem::new(
                info.file.clone(),
                Some(info.name.clone()),
                format!(
                    "{} {:?} is served to MCP clients as {mapped:?}, which is longer than {MCP_NAME_MAX} characters; choose a shorter name",
                    if recipe { "recipe" } else { "tool" },
                    info.name
                ),
            ))
        } else if let Some(first) = taken.get(&mapped) {
            Some(LoadProblem {
                clash_with: Some(first.clone()),
                ..LoadProblem::new(
                    info.file.clone(),
                    Some(info.name.clone()),
                    format!(
                        "{:?} and the definition in {first} have the same MCP name {mapped:?}; rename one",
                        info.name
                    ),
                )
            })
        } else {
            None
        };
        match problem {
            Some(problem) => refused.push((info.name.clone(), recipe, problem)),
            None => {
                taken.insert(mapped.clone(), info.file.clone());
                info.mcp_name = mapped;
            }
        }
    }
    for (name, recipe, problem) in refused {
        if recipe {
            registry.recipes.remove(&name);
        } else {
            registry.tools.remove(&name);
            table.served.remove(&name);
        }
        registry.problems.push(problem);
    }
}

/// What `[overrides] <name> = "project"` says: the project's own tool of that name serves rein's
/// own code too (a built-in recipe's step).
pub const PROJECT_OVERRIDE: &str = "project";

/// Another definition serves a built-in name for rein's own code only where rein.toml says so
/// (and a person approved it): `<name> = "<pack>.<tool>"` (that pack tool, for every caller)
/// or `<name> = "project"` (the project's tool of that name).
fn apply_overrides(sources: &Sources, table: &mut ToolTable, registry: &mut Registry) {
    for (name, target) in sources.overrides_served() {
        if target == PROJECT_OVERRIDE {
            match (table.served.get(name).cloned(), registry.tools.get(name)) {
                (Some(callable), Some(info)) if info.origin == Origin::Project => {
                    table.for_rein.insert(name.clone(), callable);
                }
                _ => registry.problems.push(LoadProblem::new(
                    "rein.toml",
                    Some(name.clone()),
                    format!("[overrides] {name} = \"project\": the project defines no tool {name} (tools/{name}.lua); add it or remove the override"),
                )),
            }
            continue;
        }
        match (table.served.get(target).cloned(), registry.tools.get(target).cloned()) {
            (Some(callable), Some(info)) => {
                let replaced = registry.tools.get(name).map(|t| (t.file.clone(), t.origin));
                table.served.insert(name.clone(), callable.clone());
                table.for_rein.insert(name.clone(), callable);
                let (overrides, overrides_origin) = replaced.unzip();
                registry
                    .tools
                    .insert(name.clone(), ToolInfo { name: name.clone(), overrides, overrides_origin, ..info });
            }
            _ => registry.problems.push(LoadProblem::new(
                "rein.toml",
                Some(name.clone()),
                format!("[overrides] {name} = {target:?}: there is no tool {target}"),
            )),
        }
    }
}

/// Applies the layering rules to the files of one kind: the winner of each name, and second
/// the built-in (or embedder's) definitions a pack or the project replaced: what rein's own
/// code still calls.
fn layered<T>(
    files: Result<Vec<SourceFile>, SourceError>,
    folder: &str,
    problems: &mut Vec<LoadProblem>,
    mut load_one: impl FnMut(&SourceFile) -> Result<Loaded<T>, LoadProblem>,
) -> (BTreeMap<String, Loaded<T>>, BTreeMap<String, Loaded<T>>) {
    let files = match files {
        Ok(files) => files,
        Err(err) => {
            problems.push(LoadProblem::new(folder, None, err.to_string()));
            return (BTreeMap::new(), BTreeMap::new());
        }
    };
    let mut winners: BTreeMap<String, Loaded<T>> = BTreeMap::new();
    let mut broken: BTreeMap<String, LoadProblem> = BTreeMap::new();
    let mut replaced_built_ins: BTreeMap<String, Loaded<T>> = BTreeMap::new();
    for file in &files {
        let loaded = match load_one(file) {
            Ok(loaded) => loaded,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        let name = loaded.info.name.clone();
        match winners.get(&name) {
            Some(previous) if previous.info.origin == file.origin => {
                let message = format!(
                    "{name:?} is defined twice in the {} layer: {} and {}; rename or remove one",
                    file.origin, previous.info.file, file.label
                );
                let problem = LoadProblem {
                    clash_with: Some(previous.info.file.clone()),
                    ..LoadProblem::new(file.label.clone(), Some(name.clone()), message)
                };
                broken.insert(name, problem);
            }
            previous => {
                let mut loaded = loaded;
                loaded.info.overrides = previous.map(|p| p.info.file.clone());
                loaded.info.overrides_origin = previous.map(|p| p.info.origin);
                broken.remove(&name);
                if let Some(replaced) = winners.insert(name.clone(), loaded) {
                    if replaced.info.origin.is_reins_own() {
                        replaced_built_ins.insert(name, replaced);
                    }
                }
            }
        }
    }
    for (name, problem) in broken {
        winners.remove(&name);
        problems.push(problem);
    }
    (winners, replaced_built_ins)
}

/// A broken file is blamed on the name it declares (`name = "greet"`), or else the name its
/// file name suggests, so calling that name reports the breakage (TOOL_INVALID, with the file
/// and line) instead of an unknown tool or an older definition.
fn problem_for(file: &SourceFile, message: String) -> LoadProblem {
    let stem = file.rel.rsplit('/').next().and_then(|n| n.strip_suffix(".lua"));
    let name = declared_name(&file.text).or(stem).map(|name| namespaced(file, name));
    let (line, message) = super::locate::locate(&file.label, &file.text, &message);
    LoadProblem { line, ..LoadProblem::new(file.label.clone(), name, message) }
}

/// Runs a declaration file: its top-level code acts as the file (and its pack), so a pack's
/// permissions bound even what it does while loading.
fn declaration(
    runtime: &mut Runtime,
    sources: &Sources,
    loading: &Loading,
    file: &SourceFile,
) -> Result<mlua::Value, LoadProblem> {
    if loading.set_aside(&file.label) {
        return Err(problem_for(file, format!("a Lua state loading this file never came back: its top-level code called a function that ran past the load budget's {} s and the watchdog gave the state up. A file's top level only declares its tool; move the work into run", crate::lua::Limits::default().for_loading().wall_time.as_secs())));
    }
    // Top-level code only declares: it asks nobody. A person's `--yes` (or their answer at the
    // terminal, or an MCP client's) is for what they asked to run, never for a file that merely
    // loaded beside it (a tool file wrote outside the workspace with `rein --yes recipe …`).
    // And it changes nothing: it is held to reading as a read-only tool is, whatever the
    // tool it declares says of itself (its top level runs on every load, `rein tools` too).
    let loader = Call::new()
        .acting_as(actor_of(sources, file, &file.label))
        .with_approver(Arc::new(Headless))
        .bound_by(Restriction::ReadOnly, &format!("{} (loading)", file.label));
    loading.at(Some(&file.label));
    let declared = runtime.load_declaration(loader, &file.chunk());
    loading.at(None);
    declared.map_err(|failure| problem_for(file, failure.message))
}

fn load_tool(
    runtime: &mut Runtime,
    sources: &Sources,
    loading: &Loading,
    file: &SourceFile,
) -> Result<Loaded<CallableTool>, LoadProblem> {
    let value = declaration(runtime, sources, loading, file)?;
    let spec = parse_tool(runtime.lua(), value).map_err(|e| problem_for(file, e.to_string()))?;
    written_literally(file, &spec.name, "tool")?;
    let name = namespaced(file, &spec.name);
    let mut info = info_of(file, &name, &spec.description, &spec.params, spec.checks.clone());
    info.annotations = spec.annotations;
    let actor = actor_of(sources, file, &name);
    let annotations = spec.annotations;
    Ok(Loaded { info, value: CallableTool { params: spec.params, run: spec.run, actor, annotations } })
}

fn load_recipe(
    runtime: &mut Runtime,
    sources: &Sources,
    loading: &Loading,
    file: &SourceFile,
) -> Result<Loaded<(RecipeSpec, RecipeCode, Actor)>, LoadProblem> {
    let value = declaration(runtime, sources, loading, file)?;
    let (mut spec, code) = parse_recipe(runtime.lua(), value).map_err(|e| problem_for(file, e.to_string()))?;
    written_literally(file, &spec.name, "recipe")?;
    spec.name = namespaced(file, &spec.name);
    let mut info = info_of(file, &spec.name, &spec.description, &spec.params, serde_json::Value::Null);
    info.annotations = spec.annotations;
    let actor = actor_of(sources, file, &spec.name);
    Ok(Loaded { info, value: (spec, code, actor) })
}

/// A file's name is written in it as a literal: a host serving only some names finds the
/// files that can serve them by it (`HostBuilder::serving_only`), so a name made at run time
/// would be served by a whole host and not by a one-call one.
fn written_literally(file: &SourceFile, name: &str, kind: &str) -> Result<(), LoadProblem> {
    if declares(&file.text, name) {
        return Ok(());
    }
    Err(problem_for(
        file,
        format!(
            "the {kind} declares the name {name:?}, but not as the literal `name = \"{name}\"` in its file; write the name so (rein finds the file that serves a name by it without running every file)"
        ),
    ))
}

/// `name` acting, with the permissions of the pack `file` comes from.
fn actor_of(sources: &Sources, file: &SourceFile, name: &str) -> Actor {
    Actor::new(name, file.pack.as_deref().and_then(|pack| sources.pack_grant(pack))).of_file(file.origin, &file.label)
}

/// A pack's tools and recipes are `<pack>.<name>`, so they never collide with built-ins, the
/// project's or another pack's.
fn namespaced(file: &SourceFile, name: &str) -> String {
    match &file.pack {
        Some(pack) => format!("{pack}.{name}"),
        None => name.to_string(),
    }
}

fn info_of(file: &SourceFile, name: &str, description: &str, params: &Params, checks: serde_json::Value) -> ToolInfo {
    ToolInfo {
        name: name.to_string(),
        mcp_name: String::new(),
        description: description.to_string(),
        origin: file.origin,
        file: file.label.clone(),
        overrides: None,
        overrides_origin: None,
        schema: params.json_schema(),
        checks,
        annotations: Annotations::default(),
    }
}

impl Registry {
    /// Whether `other` (another Lua state's load of the same sources) serves the same tools and
    /// recipes from the same files, with the same problems.
    pub(crate) fn same_definitions(&self, other: &Registry) -> bool {
        let tools = |r: &Registry| r.tools.values().map(|t| (t.name.clone(), t.file.clone())).collect::<Vec<_>>();
        let recipes =
            |r: &Registry| r.recipes.values().map(|e| (e.info.name.clone(), e.info.file.clone())).collect::<Vec<_>>();
        let problems = |r: &Registry| r.problems.iter().map(|p| p.to_string()).collect::<Vec<_>>();
        tools(self) == tools(other) && recipes(self) == recipes(other) && problems(self) == problems(other)
    }

    /// The problem that makes `name` unusable, if its definition failed.
    pub fn problem_for(&self, name: &str) -> Option<&LoadProblem> {
        self.problems.iter().find(|p| p.tool.as_deref() == Some(name))
    }

    /// Where each file of `folder` (`tools`, `recipes`) that did not load broke
    /// (`tools/x.lua:5`), for a caller looking for a name that is not served.
    pub fn broken_files(&self, folder: &str) -> Vec<String> {
        let inside = format!("{folder}/");
        self.problems
            .iter()
            .filter(|p| p.file.starts_with(&inside) || p.file.contains(&format!("/{inside}")))
            .map(|p| p.line.map_or_else(|| p.file.clone(), |line| format!("{}:{line}", p.file)))
            .collect()
    }

    /// A TOOL_NOT_FOUND that also names the files that did not load: the tool may be in one.
    pub fn explain_not_found(&self, mut failure: Failure, folder: &str) -> Failure {
        let broken = self.broken_files(folder);
        if failure.code != Code::ToolNotFound || broken.is_empty() {
            return failure;
        }
        let files = broken.join(", ");
        let (one, these) = if broken.len() == 1 { ("file", "it") } else { ("files", "one of them") };
        failure.message = format!(
            "{} {} {one} did not load ({files}); if {these} defines it, fix it: `rein check` says what is wrong.",
            failure.message,
            broken.len()
        );
        if let Some(details) = failure.details.as_object_mut() {
            details.insert("not_loaded".into(), serde_json::json!(broken));
        }
        failure
    }

    /// The tool `name` stands for: its own name, or its MCP name (`team_kit__greet` for
    /// `team-kit.greet`).
    pub fn tool_named(&self, name: &str) -> Option<&ToolInfo> {
        self.tools.get(name).or_else(|| self.tools.values().find(|t| t.mcp_name == name))
    }

    /// The recipe `name` stands for: its own name, or its MCP name (`recipe_build_verify`).
    pub fn recipe_named(&self, name: &str) -> Option<&RecipeEntry> {
        self.recipes.get(name).or_else(|| self.recipes.values().find(|r| r.info.mcp_name == name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_file_is_blamed_on_the_name_it_declares() {
        assert_eq!(declared_name("return {\n  name = \"greet\",\n  oops\n}"), Some("greet"));
        assert_eq!(declared_name("local x = { filename = 'a' }\nreturn { name = 'ship-it' }"), Some("ship-it"));
        assert_eq!(declared_name("return { name = nil }"), None);
        assert_eq!(declared_name("return { name = \"Not A Name\" }"), None);
        assert_eq!(declared_name("return {"), None);
    }

    #[test]
    fn mcp_names_are_stable_and_match_what_clients_accept() {
        assert_eq!(mcp_name("read_file", false), "read_file");
        assert_eq!(mcp_name("team-kit.greet", false), "team_kit__greet");
        assert_eq!(mcp_name("team-kit.clean-run", true), "recipe_team_kit__clean_run");
        assert_eq!(mcp_name("sign-install-launch", true), "recipe_sign_install_launch");
        assert!(valid_mcp_name("team_kit__greet"));
        assert!(!valid_mcp_name("team-kit.greet"));
        assert!(!valid_mcp_name(&"a".repeat(65)));
        assert!(!valid_mcp_name(""));
    }
}
