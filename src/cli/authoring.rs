//! `rein types`, `rein init` and `rein new tool|recipe|pack`: what a tool author starts with.
//! Scaffolds never overwrite: `init` keeps what exists, `new` refuses a name that is taken,
//! and a refused command leaves nothing on disk.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use rein::authoring::{self, LuarcOutcome, PROJECT_FILE, TYPES_DIR};
use rein::{Code, Failure};

use super::args::NewWhat;
use super::output::Output;
use super::screen::{say, tell};

const TOOL: &str = include_str!("templates/tool.lua");
const RECIPE: &str = include_str!("templates/recipe.lua");
const EXAMPLE_TOOL: &str = include_str!("templates/app_version.lua");
const REIN_TOML: &str = include_str!("templates/rein.toml");
const PACK_TOML: &str = include_str!("templates/pack.toml");
const PACK_TOOL: &str = include_str!("templates/pack_tool.lua");
const PACK_README: &str = include_str!("templates/pack_README.md");

/// `rein types [DIR]`: the stubs in DIR (default `.rein/types`), and `.luarc.json` pointing
/// at them.
pub fn types(workspace: &Path, dir: Option<&Path>, out: &Output) -> u8 {
    let dir = dir.map(Path::to_path_buf).unwrap_or_else(|| workspace.join(TYPES_DIR));
    match authoring::write_types(workspace, &dir) {
        Ok(written) if out.json => out.success(&written),
        Ok(written) => {
            say!("wrote {} files to {}", written.files.len(), rein::visible::path(&written.dir));
            print_luarc(&written.luarc);
            0
        }
        Err(failure) => out.failure(&failure),
    }
}

fn print_luarc(outcome: &LuarcOutcome) {
    match outcome {
        LuarcOutcome::Created { path, library } => say!("created {path} (workspace.library: {library})"),
        LuarcOutcome::Updated { path, library } => say!("added {library} to workspace.library in {path}"),
        LuarcOutcome::Unchanged { path, .. } => say!("{path} already points at them"),
        LuarcOutcome::LeftAlone { path, why, .. } => tell!("warning: left {path} as it is: {why}"),
    }
}

/// What a scaffold did to each path.
#[derive(Default)]
struct Made {
    created: Vec<String>,
    kept: Vec<String>,
}

impl Made {
    fn to_json(&self) -> Value {
        json!({"created": self.created, "kept": self.kept})
    }

    fn print(&self) {
        for path in &self.created {
            say!("created  {path}");
        }
        for path in &self.kept {
            say!("kept     {path} (it exists)");
        }
    }
}

/// `rein init`: tools/ with an example tool, recipes/, a commented rein.toml, the stubs and
/// .luarc.json; whatever exists is kept.
pub fn init(workspace: &Path, out: &Output) -> u8 {
    let mut made = Made::default();
    let result = (|| {
        dir(workspace, "tools", &mut made)?;
        dir(workspace, "recipes", &mut made)?;
        file(workspace, "tools/app_version.lua", EXAMPLE_TOOL, &mut made)?;
        file(workspace, PROJECT_FILE, REIN_TOML, &mut made)?;
        authoring::write_types(workspace, &workspace.join(TYPES_DIR))
    })();
    let written = match result {
        Ok(written) => written,
        Err(failure) => return out.failure(&failure),
    };
    if out.json {
        let mut result = made.to_json();
        result["types"] = serde_json::to_value(&written).unwrap_or_default();
        return out.success(&result);
    }
    made.print();
    say!("wrote the editor stubs to {TYPES_DIR}/");
    print_luarc(&written.luarc);
    say!("next: `rein check`, `rein test`, then `rein new tool NAME` or `rein new recipe NAME`");
    0
}

/// `rein new tool|recipe|pack NAME`.
pub fn new(workspace: &Path, what: &NewWhat, out: &Output) -> u8 {
    let result = match what {
        NewWhat::Tool { name } => new_tool(workspace, name),
        NewWhat::Recipe { name } => new_recipe(workspace, name),
        NewWhat::Pack { name } => new_pack(Path::new("."), name),
        NewWhat::App(_) => unreachable!("`rein new app` calls the project_create tool (cli::new_app)"),
    };
    match result {
        Ok(made) if out.json => out.success(&made.to_json()),
        Ok(made) => {
            made.print();
            0
        }
        Err(failure) => out.failure(&failure),
    }
}

fn new_tool(workspace: &Path, name: &str) -> Result<Made, Failure> {
    if !authoring::is_tool_name(name) {
        return Err(bad_name(
            "tool",
            name,
            "lowercase letters, digits and _, starting with a letter",
            &name.to_lowercase().replace('-', "_"),
        ));
    }
    let rel = format!("tools/{name}.lua");
    refuse_taken(workspace, &rel)?;
    if is_built_in("tools", name) {
        tell!("note: the project's {name} replaces the built-in tool of that name (`rein tools` shows origins)");
    }
    let mut made = Made::default();
    file(workspace, &rel, &TOOL.replace("__NAME__", name), &mut made)?;
    Ok(made)
}

fn new_recipe(workspace: &Path, name: &str) -> Result<Made, Failure> {
    if !authoring::is_recipe_name(name) {
        let rule = "lowercase letters, digits, - and _, starting with a letter";
        return Err(bad_name("recipe", name, rule, &name.to_lowercase()));
    }
    let rel = format!("recipes/{name}.lua");
    refuse_taken(workspace, &rel)?;
    if is_built_in("recipes", name) {
        tell!("note: the project's {name} replaces the built-in recipe of that name");
    }
    let mut made = Made::default();
    file(workspace, &rel, &RECIPE.replace("__NAME__", name), &mut made)?;
    Ok(made)
}

/// A folder `name/` where rein runs, like `cargo new`: a pack that `rein check` and
/// `rein test` accept there, and `rein pack add` installs as it is.
fn new_pack(parent: &Path, name: &str) -> Result<Made, Failure> {
    if !authoring::is_pack_name(name) {
        let rule = "kebab-case: lowercase letters, digits and -, starting with a letter";
        return Err(bad_name("pack", name, rule, &name.to_lowercase().replace('_', "-")));
    }
    refuse_taken(parent, name)?;
    let root = parent.join(name);
    let result = fill_pack(&root, name);
    if result.is_err() {
        // The folder did not exist a moment ago: a failed scaffold leaves nothing behind.
        let _ = std::fs::remove_dir_all(&root);
    }
    result
}

fn fill_pack(root: &Path, name: &str) -> Result<Made, Failure> {
    let mut made = Made::default();
    let files = [
        ("pack.toml", PACK_TOML.replace("__NAME__", name).replace("__REIN_RANGE__", &compatible_range())),
        ("README.md", PACK_README.replace("__PACK__", name)),
        ("tools/hello.lua", PACK_TOOL.replace("__PACK__", name)),
    ];
    for (rel, text) in &files {
        file(root, rel, text, &mut Made::default())?;
    }
    // No empty recipes/ or prelude/: git would not keep them, and the README says where they go.
    made.created.push(format!("{name}/ (pack.toml, README.md, tools/hello.lua)"));
    Ok(made)
}

/// The rein versions a new pack says it works with: this minor version (0.x) or major (1+).
fn compatible_range() -> String {
    let version = semver::Version::parse(env!("CARGO_PKG_VERSION")).unwrap_or(semver::Version::new(0, 1, 0));
    if version.major == 0 {
        format!(">=0.{}, <0.{}", version.minor, version.minor + 1)
    } else {
        format!(">={}.{}, <{}", version.major, version.minor, version.major + 1)
    }
}

fn bad_name(kind: &str, name: &str, rule: &str, suggestion: &str) -> Failure {
    Failure::new(Code::InvalidArgs, format!("{kind} name {name:?} must be {rule}; for example `{suggestion}`"))
        .with_details(json!({"name": name}))
}

fn refuse_taken(base: &Path, rel: &str) -> Result<(), Failure> {
    let path = base.join(rel);
    if path.symlink_metadata().is_ok() {
        return Err(Failure::new(
            Code::InvalidArgs,
            format!("{} exists; pick another name, or edit it", rein::visible::path(&path)),
        )
        .with_details(json!({"path": path})));
    }
    Ok(())
}

fn is_built_in(folder: &str, name: &str) -> bool {
    authoring::is_built_in(&format!("{folder}/{name}.lua"))
}

fn dir(base: &Path, rel: &str, made: &mut Made) -> Result<(), Failure> {
    let path = base.join(rel);
    refuse_link(&path)?;
    if path.is_dir() {
        made.kept.push(format!("{rel}/"));
        return Ok(());
    }
    std::fs::create_dir_all(&path).map_err(|e| io_failure(&path, e))?;
    made.created.push(format!("{rel}/"));
    Ok(())
}

/// A link where rein makes or fills a folder may lead out of the workspace (an agent can make
/// one): what rein writes there would land at its target.
fn refuse_link(path: &Path) -> Result<(), Failure> {
    if !path.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()) {
        return Ok(());
    }
    Err(Failure::new(
        Code::InvalidArgs,
        format!(
            "{} is a link; rein writes its files into folders of the workspace only: remove the link (or make it a folder) and run this again",
            rein::visible::path(path)
        ),
    ))
}

fn file(base: &Path, rel: &str, text: &str, made: &mut Made) -> Result<(), Failure> {
    let path: PathBuf = base.join(rel);
    let mut folder = base.to_path_buf();
    for part in Path::new(rel).parent().into_iter().flat_map(Path::components) {
        folder.push(part);
        refuse_link(&folder)?;
    }
    if path.symlink_metadata().is_ok() {
        made.kept.push(rel.to_string());
        return Ok(());
    }
    authoring::write_generated(&path, text)?;
    made.created.push(rel.to_string());
    Ok(())
}

fn io_failure(path: &Path, err: std::io::Error) -> Failure {
    Failure::new(Code::IoError, format!("cannot create {}: {err}", rein::visible::path(path)))
}
