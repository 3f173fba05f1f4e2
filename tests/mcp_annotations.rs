//! MCP tool annotations (issue 25): every built-in tool and recipe says what it does to the
//! world (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`), a project's
//! tool says it in its table, and a declaration that contradicts itself does not load.

use serde_json::{json, Value};

use crate::common::{rein_json, Workspace};

const HINTS: [&str; 4] = ["read_only", "destructive", "idempotent", "open_world"];

fn listing(ws: &Workspace) -> Value {
    let (status, out) = rein_json(ws, &["tools"]);
    assert_eq!(status, 0, "{out}");
    out["result"].clone()
}

#[test]
fn every_built_in_tool_and_recipe_declares_the_four_hints() {
    let ws = Workspace::new();
    let listed = listing(&ws);
    let all = listed["tools"].as_array().unwrap().iter().chain(listed["recipes"].as_array().unwrap());
    let mut seen = 0;
    for tool in all.filter(|t| t["origin"] == "built-in") {
        seen += 1;
        for hint in HINTS {
            assert!(
                tool["annotations"][hint].is_boolean(),
                "{} declares {hint}: {}",
                tool["name"],
                tool["annotations"]
            );
        }
    }
    assert!(seen >= 15, "the built-ins were listed: {listed}");
    let hints = |name: &str| -> Value {
        let tools = listed["tools"].as_array().unwrap();
        tools.iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("{name} listed"))["annotations"].clone()
    };
    // The issue's cases: reads are read-only, these two destroy, device tools reach outside.
    for read in ["read_file", "list_dir", "project_info", "device_list", "hilog_read", "config_check"] {
        assert_eq!(hints(read)["read_only"], true, "{read}");
        assert_eq!(hints(read)["destructive"], false, "{read}");
    }
    // project_create writes, but only new files: the kernel holds it to that (NOT_DESTRUCTIVE_TOOL).
    let create = hints("project_create");
    assert_eq!((create["read_only"].clone(), create["destructive"].clone()), (json!(false), json!(false)), "{create}");
    for destroys in ["app_uninstall", "write_file", "edit_file"] {
        assert_eq!(hints(destroys)["destructive"], true, "{destroys}");
        assert_eq!(hints(destroys)["read_only"], false, "{destroys}");
    }
    for device in ["app_install", "app_launch", "app_uninstall", "screenshot", "device_list"] {
        assert_eq!(hints(device)["open_world"], true, "{device}");
    }
    assert_eq!(hints("read_file")["open_world"], false, "the workspace is a closed world");
    // Looking at the screen reads it: the scratch files it makes on the device and in the
    // transit folder are gone again when it answers (tests/harmony_ui.rs), so asking twice
    // changes nothing; the device is outside rein's world.
    // Touching the screen acts on the world outside rein and may change or remove what the
    // app holds (tests/harmony_ui_input.rs); waiting for a widget only looks.
    for touches in ["ui_tap", "ui_type", "ui_swipe", "ui_key"] {
        assert_eq!(
            hints(touches),
            json!({"read_only": false, "destructive": true, "idempotent": false, "open_world": true}),
            "{touches}"
        );
    }
    for looks in ["ui_dump", "ui_find", "ui_wait"] {
        assert_eq!(
            hints(looks),
            json!({"read_only": true, "destructive": false, "idempotent": true, "open_world": true}),
            "{looks}"
        );
    }
}

#[test]
fn a_projects_tool_declares_its_own_hints() {
    let ws = Workspace::new();
    ws.file(
        "tools/peek.lua",
        r#"return { name = "peek", description = "reads a note",
             annotations = { read_only = true, open_world = false },
             run = function() return { ok = true } end }"#,
    );
    let listed = listing(&ws);
    let peek = listed["tools"].as_array().unwrap().iter().find(|t| t["name"] == "peek").cloned().unwrap();
    assert_eq!(peek["annotations"], json!({"read_only": true, "open_world": false}), "{peek}");
    ws.file("tools/quiet.lua", r#"return { name = "quiet", description = "says nothing", run = function() end }"#);
    let listed = listing(&ws);
    let quiet = listed["tools"].as_array().unwrap().iter().find(|t| t["name"] == "quiet").cloned().unwrap();
    assert!(
        quiet.get("annotations").is_none(),
        "undeclared hints stay undeclared (the client assumes the worst): {quiet}"
    );
}

#[test]
fn rein_check_refuses_a_tool_that_is_read_only_and_destructive() {
    let ws = Workspace::new();
    ws.file(
        "tools/liar.lua",
        r#"return { name = "liar", description = "says it only reads",
             annotations = { read_only = true, destructive = true },
             run = function() rein.fs.write("x.txt", "gone") end }"#,
    );
    let (status, out) = rein_json(&ws, &["check"]);
    assert_ne!(status, 0, "{out}");
    let text = out.to_string();
    assert!(text.contains("tools/liar.lua") && text.contains("contradict"), "{out}");
    for (file, table) in [
        ("tools/typo.lua", "{ readonly = true }"),
        ("tools/word.lua", "{ read_only = \"yes\" }"),
        ("tools/flat.lua", "true"),
    ] {
        let name = file.trim_start_matches("tools/").trim_end_matches(".lua");
        ws.file("tools/liar.lua", "return nil");
        std::fs::remove_file(ws.path("tools/liar.lua")).unwrap();
        ws.file(
            file,
            format!("return {{ name = \"{name}\", description = \"d\", annotations = {table}, run = function() end }}"),
        );
        let (status, out) = rein_json(&ws, &["check"]);
        assert_ne!(status, 0, "{table} is refused: {out}");
        assert!(out.to_string().contains(file), "{out}");
        std::fs::remove_file(ws.path(file)).unwrap();
    }
    let recipe = r#"return { name = "r", description = "d", annotations = { read_only = true, destructive = true },
                     steps = { { name = "s", run = function() end } } }"#;
    ws.file("recipes/r.lua", recipe);
    let (status, out) = rein_json(&ws, &["check"]);
    assert_ne!(status, 0, "a recipe is held to the same: {out}");
}
