//! `rein.sdk`: the HarmonyOS SDK's declarations, read-only (`harmony::sdk`).

use mlua::{Lua, MultiValue, Value};
use serde::Deserialize;

use super::declare::{Area, Home, Make, Native, Param, Returns};
use super::{options, outcome};
use crate::harmony::sdk::check::Project;
use crate::lua::{current_call, state};

pub const AREA: Area = Area {
    home: Home::Table("sdk"),
    doc: "The SDK's declaration files (.d.ts/.d.ets), read-only: nothing but a module name reaches them.",
    natives: &[
        Native {
            name: "lookup",
            doc: "A module (`module`), or a symbol (`symbol`, in `module` or found by its first word), with what its JSDoc says; `@kit` modules are followed. Returns `{sdk, module}` or `{sdk, symbol}`, `{not_found = {missing, closest}}`, or `{no_sdk = {tried, fix}}`.",
            params: &[
                Param { name: "module", ty: "string?", doc: "@ohos.vibrator, @kit.SensorServiceKit, @hms.…" },
                Param { name: "symbol", ty: "string?", doc: "vibrator.startVibration" },
            ],
            returns: &[Returns { ty: "table", doc: "" }],
            make: Make::Raising(|lua| lua.create_function(lookup)),
        },
        Native {
            name: "check",
            doc: "An ArkTS text's imports from @ohos/@kit/@hms and the members it uses, judged against the SDK and the project: `{sdk, findings}` (each {severity, rule, line, column, message, closest?, replacement?}) or `{no_sdk}`.",
            params: &[
                Param { name: "text", ty: "string", doc: "" },
                Param {
                    name: "project",
                    ty: "{compatible_sdk?: string, permissions?: string[]}?",
                    doc: "compatibleSdkVersion as written; the permissions module.json5 requests",
                },
            ],
            returns: &[Returns { ty: "table", doc: "" }],
            make: Make::Raising(|lua| lua.create_function(check)),
        },
    ],
    classes: &[],
};

fn lookup(lua: &Lua, (module, symbol): (Option<String>, Option<String>)) -> mlua::Result<MultiValue> {
    let result = current_call::get()
        .and_then(|call| Ok(state::kernel(lua).sdk_lookup(&call, module.as_deref(), symbol.as_deref())?));
    outcome(lua, result)
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectOpts {
    compatible_sdk: Option<String>,
    #[serde(default)]
    permissions: Vec<String>,
}

fn check(lua: &Lua, (text, project): (String, Value)) -> mlua::Result<MultiValue> {
    let result = options::<ProjectOpts>(lua, project, "rein.sdk.check").and_then(|o| {
        let (min_level, min_version) = o.compatible_sdk.as_deref().map(Project::min_sdk).unwrap_or((None, None));
        let project = Project { min_level, min_version, permissions: o.permissions };
        Ok(state::kernel(lua).sdk_check(&current_call::get()?, &text, &project)?)
    });
    outcome(lua, result)
}
