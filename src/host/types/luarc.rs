//! The workspace's `.luarc.json`, which tells lua-language-server where the stubs are. A new
//! one says everything rein's sandbox means (Lua 5.4; no io, os, package or debug); an
//! existing one only gets the stubs folder added to `workspace.library` (and the Lua version
//! when it names none). One that is not plain JSON (comments, say) is left alone, and the
//! outcome says what to add by hand.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::{write_generated, TypesError};
use crate::kernel::files::names::relative_name;
use crate::kernel::files::read::{read_optional_text, Links};
use crate::visible::shown_path;

/// What `rein types` did to the workspace's `.luarc.json` (`path`), pointing the editor at
/// the stubs folder (`library`, as listed in `workspace.library`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case", tag = "action")]
pub enum LuarcOutcome {
    /// There was none; rein wrote one.
    #[allow(missing_docs)]
    Created { path: String, library: String },
    /// It got the stubs folder added.
    #[allow(missing_docs)]
    Updated { path: String, library: String },
    /// It already pointed at the stubs.
    #[allow(missing_docs)]
    Unchanged { path: String, library: String },
    /// rein could not edit it (`why`); the folder must be added by hand.
    #[allow(missing_docs)]
    LeftAlone { path: String, library: String, why: String },
}

/// Makes `workspace/.luarc.json` list `dir` in `workspace.library`.
pub fn point_at(workspace: &Path, dir: &Path) -> Result<LuarcOutcome, TypesError> {
    let path = workspace.join(".luarc.json");
    let shown_path = shown_path(&path);
    let library = library_entry(workspace, dir);
    // Read as the project's policy files are: the agent can make `.luarc.json` a link to a
    // person's file outside (rein would copy it into the workspace with the stubs added), a FIFO
    // or a link to a device. Anything but a plain file is why rein leaves it alone.
    let existing = match read_optional_text(&path, Links::Refuse) {
        Ok(text) => text,
        Err(why) => return Ok(left_alone(shown_path, library, &why.to_string())),
    };
    let Some(text) = existing else {
        write_generated(&path, &pretty(&fresh(&library)))?;
        return Ok(LuarcOutcome::Created { path: shown_path, library });
    };
    let mut config = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(config)) => config,
        Ok(_) => return Ok(left_alone(shown_path, library, "it is not a JSON object")),
        Err(e) => return Ok(left_alone(shown_path, library, &format!("rein reads only plain JSON ({e})"))),
    };
    let changed = add_library(&mut config, &library)? | set_version(&mut config);
    if !changed {
        return Ok(LuarcOutcome::Unchanged { path: shown_path, library });
    }
    write_generated(&path, &pretty(&Value::Object(config)))?;
    Ok(LuarcOutcome::Updated { path: shown_path, library })
}

fn left_alone(path: String, library: String, why: &str) -> LuarcOutcome {
    let why = format!("{why}; add {library:?} to \"workspace.library\" yourself");
    LuarcOutcome::LeftAlone { path, library, why }
}

/// `dir` relative to the workspace with `/` when it is inside it (so the file can be committed
/// and read on any OS), absolute otherwise.
fn library_entry(workspace: &Path, dir: &Path) -> String {
    let dir = canonical(dir);
    match relative_name(&dir, &canonical(workspace)) {
        Some(rel) if rel.is_empty() => ".".to_string(),
        Some(rel) => rel,
        None => shown_path(&dir),
    }
}

/// `path` with its longest existing part canonicalized and the missing rest kept, so a folder
/// not made yet compares with its existing workspace in the same (on Windows, verbatim) form.
fn canonical(path: &Path) -> PathBuf {
    match (std::fs::canonicalize(path), path.parent(), path.file_name()) {
        (Ok(found), _, _) => found,
        (Err(_), Some(parent), Some(name)) => canonical(parent).join(name),
        _ => path.to_path_buf(),
    }
}

fn fresh(library: &str) -> Value {
    json!({
        "$schema": "https://raw.githubusercontent.com/LuaLS/vscode-lua/master/setting/schema.json",
        "runtime.version": "Lua 5.4",
        "runtime.builtin": {"debug": "disable", "io": "disable", "os": "disable", "package": "disable"},
        "workspace.library": [library],
        "workspace.checkThirdParty": false,
    })
}

/// Adds `library` to `workspace.library`, flat (`"workspace.library"`) or nested
/// (`"workspace": {"library": …}`), whichever the file uses.
fn add_library(config: &mut Map<String, Value>, library: &str) -> Result<bool, TypesError> {
    let list = match config.get_mut("workspace").and_then(Value::as_object_mut) {
        Some(nested) if nested.contains_key("library") => nested.get_mut("library"),
        _ => Some(config.entry("workspace.library").or_insert_with(|| json!([]))),
    };
    let Some(Value::Array(list)) = list else {
        // A library given as something other than a list: replace nothing, add nothing.
        return Ok(false);
    };
    if list.iter().any(|entry| entry.as_str() == Some(library)) {
        return Ok(false);
    }
    list.push(json!(library));
    Ok(true)
}

fn set_version(config: &mut Map<String, Value>) -> bool {
    let nested = config.get("runtime").and_then(Value::as_object).is_some_and(|r| r.contains_key("version"));
    if nested || config.contains_key("runtime.version") {
        return false;
    }
    config.insert("runtime.version".into(), json!("Lua 5.4"));
    true
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn existing_settings_are_kept_and_the_library_added_once() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::create_dir_all(ws.join(".rein/types")).unwrap();
        std::fs::write(ws.join(".luarc.json"), r#"{"workspace": {"library": ["/opt/lib"]}, "hint.enable": true}"#)
            .unwrap();
        let outcome = point_at(ws, &ws.join(".rein/types")).unwrap();
        assert!(matches!(outcome, LuarcOutcome::Updated { .. }), "{outcome:?}");
        let config: Value = serde_json::from_str(&std::fs::read_to_string(ws.join(".luarc.json")).unwrap()).unwrap();
        assert_eq!(config["workspace"]["library"], json!(["/opt/lib", ".rein/types"]));
        assert_eq!(config["hint.enable"], json!(true));
        assert_eq!(config["runtime.version"], json!("Lua 5.4"));
        let again = point_at(ws, &ws.join(".rein/types")).unwrap();
        assert!(matches!(again, LuarcOutcome::Unchanged { .. }), "{again:?}");
    }

    #[test]
    fn a_file_with_comments_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let text = "{\n  // mine\n  \"runtime.version\": \"Lua 5.4\"\n}\n";
        std::fs::write(dir.path().join(".luarc.json"), text).unwrap();
        let outcome = point_at(dir.path(), &dir.path().join("types")).unwrap();
        let LuarcOutcome::LeftAlone { why, .. } = outcome else { panic!("{outcome:?}") };
        assert!(why.contains("\"types\""), "{why}");
        assert_eq!(std::fs::read_to_string(dir.path().join(".luarc.json")).unwrap(), text);
    }
}
