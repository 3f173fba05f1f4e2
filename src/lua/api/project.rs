//! `rein.project`: a HarmonyOS project's configuration checked (`check_config`) and a new
//! project's files rendered (`scaffold`). The rules and the template live in `crate::harmony`;
//! this area reads the files through the kernel, for the call it belongs to.

use mlua::{Lua, MultiValue, Value};

use super::declare::{Area, Class, Field, Home, Make, Native, Param, Returns};
use super::outcome;
use crate::error::{Code, Failure};
use crate::harmony::config_check::{self, Fetched, ProjectFiles};
use crate::harmony::scaffold::{self, Request};
use crate::kernel::{Call, Kernel, KernelError, ListOptions};
use crate::lua::{convert, current_call, state};

pub const AREA: Area = Area {
    home: Home::Table("project"),
    doc: "A HarmonyOS project's configuration files: checked, or rendered for a new project.",
    natives: &[
        Native {
            name: "check_config",
            doc: "Problems of the project's app.json5, module.json5, build-profile.json5, oh-package.json5 and hvigor-config.json5 (syntax, required fields, types, references), each with file, line, column, severity and fix.",
            params: &[Param { name: "root", ty: "string?", doc: "the project's folder (default the workspace)" }],
            returns: &[Returns { ty: "rein.project.Problem[]", doc: "" }],
            make: Make::Raising(|lua| lua.create_function(check_config)),
        },
        Native {
            name: "scaffold",
            doc: "The files of a new Empty Ability project (path relative to the project, content); INVALID_ARGS naming the argument when the request makes none. Writes nothing.",
            params: &[Param { name: "request", ty: "rein.project.Request", doc: "" }],
            returns: &[Returns { ty: "rein.project.NewFile[]", doc: "" }],
            make: Make::Raising(|lua| lua.create_function(scaffold)),
        },
    ],
    classes: &[
        Class {
            name: "rein.project.Problem",
            doc: "",
            fields: &[
                Field { name: "file", ty: "string", doc: "relative to the workspace" },
                Field { name: "line", ty: "integer", doc: "from 1" },
                Field { name: "column", ty: "integer", doc: "from 1, in characters" },
                Field { name: "severity", ty: "\"error\"|\"warning\"", doc: "" },
                Field { name: "message", ty: "string", doc: "" },
                Field { name: "fix", ty: "string", doc: "what to write" },
            ],
        },
        Class {
            name: "rein.project.Request",
            doc: "",
            fields: &[
                Field { name: "bundle_name", ty: "string", doc: "e.g. com.example.hello" },
                Field { name: "app_name", ty: "string", doc: "" },
                Field { name: "runtime_os", ty: "\"HarmonyOS\"|\"OpenHarmony\"?", doc: "" },
                Field { name: "compatible_sdk", ty: "(string|integer)?", doc: "\"6.0.0(20)\" (HarmonyOS) or 20 (OpenHarmony)" },
                Field { name: "target_sdk", ty: "(string|integer)?", doc: "" },
                Field { name: "compile_sdk", ty: "(string|integer)?", doc: "" },
                Field { name: "model_version", ty: "string?", doc: "hvigor's, default 6.0.0" },
            ],
        },
        Class {
            name: "rein.project.NewFile",
            doc: "",
            fields: &[
                Field { name: "path", ty: "string", doc: "relative to the new project's folder" },
                Field { name: "content", ty: "string", doc: "bytes" },
            ],
        },
    ],
};

/// The project's files as the kernel lets this call read them, inside the workspace only.
struct KernelFiles<'k> {
    kernel: &'k Kernel,
    call: &'k Call,
}

impl ProjectFiles for KernelFiles<'_> {
    fn read(&self, path: &str) -> Fetched {
        if !self.kernel.is_workspace_path(path) {
            return Fetched::Unreadable(format!(
                "{path} is not a file of the workspace (a path of its configuration leads outside it): rein checks only the project's own files"
            ));
        }
        match self.kernel.read_text(self.call, path) {
            Ok(file) => Fetched::Text(file.text),
            Err(KernelError::FileNotFound { .. }) => Fetched::Missing,
            Err(e) => Fetched::Unreadable(e.to_string()),
        }
    }

    fn names_in(&self, dir: &str) -> Vec<String> {
        if !self.kernel.is_workspace_path(dir) {
            return Vec::new();
        }
        let listed = self.kernel.list(self.call, dir, ListOptions { depth: 0, max_entries: 10_000 });
        let Ok(listing) = listed else { return Vec::new() };
        listing.entries.into_iter().map(|e| e.path.rsplit('/').next().unwrap_or_default().to_string()).collect()
    }
}

fn check_config(lua: &Lua, root: Option<String>) -> mlua::Result<MultiValue> {
    let result = current_call::get().map(|call| {
        let kernel = state::kernel(lua);
        config_check::check(&KernelFiles { kernel: &kernel, call: &call }, root.as_deref().unwrap_or("."))
    });
    outcome(lua, result)
}

fn scaffold(lua: &Lua, request: Value) -> mlua::Result<MultiValue> {
    let invalid = |message: String, argument: Option<&str>| {
        Failure::new(Code::InvalidArgs, message).with_details(serde_json::json!({"argument": argument}))
    };
    let request: Result<Request, Failure> = convert::try_lua_to_json(lua, request)
        .map_err(|e| invalid(format!("the request is not a table of arguments: {e}"), None))
        .and_then(|json| {
            serde_json::from_value(json).map_err(|e| invalid(format!("the request does not fit: {e}"), None))
        });
    let files = request.and_then(|r| scaffold::render(&r).map_err(|e| invalid(e.to_string(), Some(e.argument))));
    match files {
        Ok(files) => {
            let list = lua.create_table()?;
            for (i, file) in files.into_iter().enumerate() {
                let entry = lua.create_table()?;
                entry.set("path", file.path)?;
                entry.set("content", lua.create_string(&file.bytes)?)?;
                list.set(i + 1, entry)?;
            }
            outcome_table(lua, list)
        }
        Err(failure) => outcome::<()>(lua, Err(failure)),
    }
}

fn outcome_table(lua: &Lua, table: mlua::Table) -> mlua::Result<MultiValue> {
    use mlua::IntoLuaMulti;
    (true, table).into_lua_multi(lua)
}
