//! `config_check`: a HarmonyOS project's configuration read before anything slow runs —
//! `AppScope/app.json5`, each `module.json5`, `build-profile.json5` (root and modules),
//! `oh-package.json5` and `hvigor/hvigor-config.json5`: JSON5 syntax, required fields, types,
//! and the references between them. Each problem has its file, line and column, a severity and
//! what to write (docs/src/new-project.md lists the rules and their sources).
//!
//! Where the rules come from: the SDK ships JSON schemas for `app.json` and `module.json` in
//! its `toolchains/modulecheck/` folder (seen in a copy of an SDK's toolchains folder,
//! `pengqiyu123/Open-AutoGLM-GUI` @ed1070d2 `toolchains/modulecheck/{app,module}.json`); the
//! required fields and types here follow them. Where in an installed SDK that folder sits, and
//! whether it ships schemas for build-profile.json5, oh-package.json5 or hvigor-config.json5,
//! is not confirmed, so rein does not read schemas from the SDK: those three files are checked
//! for what DevEco's own template writes (shared/HARMONY-VERIFY.md §5).
//!
//! - `spans`: JSON5 with positions; `fields`: required fields and their types
//! - `project`: the root files and the references between them; `module`: one module's files
//! - `resources`: `$string:`/`$media:`/`$profile:`… references ↔ resource files
//! - `sdk_level`: SDK level strings and their order (shared with the project scaffold)

mod fields;
mod module;
mod project;
mod resources;
pub mod sdk_level;
mod spans;

pub use project::is_bundle_name;

use serde::Serialize;

/// How bad a problem is: an error fails the build (or the install), a warning does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One problem, where it is and what to write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Relative to the workspace, `/`-separated.
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub severity: Severity,
    pub message: String,
    /// What to write (or do) instead.
    pub fix: String,
}

/// What reading a project file found.
pub enum Fetched {
    Text(String),
    Missing,
    /// Refused or failed (outside the workspace, not UTF-8 …): the reason.
    Unreadable(String),
}

/// The project's files, read through whatever guards them (the kernel, for rein's tools):
/// paths are relative to the workspace, `/`-separated.
pub trait ProjectFiles {
    fn read(&self, path: &str) -> Fetched;
    /// The names in folder `dir` (files and folders); empty when it is missing.
    fn names_in(&self, dir: &str) -> Vec<String>;
}

/// Every problem of the project whose root folder is `root` (`"."` for the workspace).
pub fn check(files: &dyn ProjectFiles, root: &str) -> Vec<Problem> {
    let mut found = Found { files, problems: Vec::new() };
    project::check(&mut found, root);
    // An element file is read once per resource type it is searched for.
    found
        .problems
        .sort_by(|a, b| (&a.file, a.line, a.column, &a.message).cmp(&(&b.file, b.line, b.column, &b.message)));
    found.problems.dedup();
    found.problems
}

/// The files being checked and the problems found so far.
pub(crate) struct Found<'f> {
    files: &'f dyn ProjectFiles,
    problems: Vec<Problem>,
}

impl Found<'_> {
    fn add(&mut self, file: &spans::Located, offset: usize, severity: Severity, message: String, fix: String) {
        let (line, column) = file.position(offset);
        self.problems.push(Problem { file: file.file.clone(), line, column, severity, message, fix });
    }

    fn error(&mut self, file: &spans::Located, offset: usize, message: String, fix: String) {
        self.add(file, offset, Severity::Error, message, fix);
    }

    fn warning(&mut self, file: &spans::Located, offset: usize, message: String, fix: String) {
        self.add(file, offset, Severity::Warning, message, fix);
    }

    /// The file at `path`, or `None` after reporting why not (a required file that is missing
    /// is an error at 1:1 of its own path).
    fn load(&mut self, path: &str, required: bool) -> Option<spans::Located> {
        let nowhere = spans::Located { file: path.to_string(), text: String::new() };
        match self.files.read(path) {
            Fetched::Text(text) => Some(spans::Located { file: path.to_string(), text }),
            Fetched::Missing if required => {
                self.error(
                    &nowhere,
                    0,
                    format!("{path} is missing"),
                    format!("create {path} (a new project has one: project_create)"),
                );
                None
            }
            Fetched::Missing => None,
            Fetched::Unreadable(why) => {
                self.error(
                    &nowhere,
                    0,
                    format!("{path} cannot be read: {why}"),
                    "make it a readable UTF-8 file inside the workspace".into(),
                );
                None
            }
        }
    }

    fn exists(&self, path: &str) -> bool {
        let (dir, name) = path.rsplit_once('/').unwrap_or((".", path));
        self.files.names_in(dir).iter().any(|n| n == name)
    }
}

/// `base/rel` with `./` and empty segments dropped (`..` stays: the files reader judges it).
pub(crate) fn join(base: &str, rel: &str) -> String {
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty() && *p != ".").collect();
    parts.extend(rel.split(['/', '\\']).filter(|p| !p.is_empty() && *p != "."));
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}
