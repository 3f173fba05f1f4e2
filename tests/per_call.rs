//! Per-call state stays with its call: concurrent branches of `rein.parallel` each act as the
//! tool they run (a pack's permissions follow the pack's tool and nothing else), and a call
//! on a reloaded generation neither spends a running recipe's budget nor is rolled back with
//! its step.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{rein_json, toml_path, Workspace};

/// An hdc that answers `list targets` like a server with no device, set in home config.
fn plain_hdc(ws: &Workspace) {
    use std::os::unix::fs::PermissionsExt;
    let hdc = ws.root.join("bin/hdc");
    std::fs::create_dir_all(hdc.parent().unwrap()).unwrap();
    // hdc prints "[Empty]" when no device is connected (HARMONY.md, `hdc list targets`).
    std::fs::write(&hdc, "#!/bin/sh\necho '[Empty]'\n").unwrap();
    std::fs::set_permissions(&hdc, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(ws.home.join("config.toml"), format!("[toolchain]\nhdc = {}\n", toml_path(&hdc))).unwrap();
}

/// Waits (in Lua, bounded) until `file` exists in the workspace.
const WAIT_FOR: &str = r#"
local function wait_for(file)
  for _ = 1, 1000 do
    if rein.fs.exists(file) then return end
    rein.sleep(5)
  end
  rein.error("WAITED_TOO_LONG", file .. " never appeared")
end
"#;

/// Installs a pack `team-kit` that may run only hvigorw, with a tool that runs hdc once the
/// project tool in the other branch has finished.
fn install_pack(ws: &Workspace) {
    let source = ws.root.join("team-kit");
    std::fs::create_dir_all(source.join("tools")).unwrap();
    std::fs::write(
        source.join("pack.toml"),
        "name = \"team-kit\"\nversion = \"1.0.0\"\ndescription = \"d\"\nrein = \">=0.1\"\npermissions = [\"hvigorw\"]\n",
    )
    .unwrap();
    std::fs::write(
        source.join("tools/late.lua"),
        format!(
            "{WAIT_FOR}\nreturn {{ name = 'late', description = 'runs hdc after the other branch ended',\n  run = function()\n    rein.fs.write('pack-started', '')\n    wait_for('project-done')\n    return rein.proc.run('hdc', {{ 'list', 'targets' }})\n  end }}\n"
        ),
    )
    .unwrap();
    crate::common::pin_local_pack(ws, "team-kit", &source);
}

fn journal_entries(ws: &Workspace) -> Vec<Value> {
    crate::common::journal_entries(&ws.ws, None)
}

#[test]
fn parallel_branches_act_as_their_own_tool_whatever_order_they_end_in() {
    let ws = Workspace::new();
    plain_hdc(&ws);
    install_pack(&ws);
    // While the pack tool waits, one project tool runs hdc; then another project tool, which
    // started before the pack tool, ends first. Neither may change what the other branches
    // are allowed.
    ws.file(
        "tools/busy.lua",
        format!(
            "{WAIT_FOR}\nreturn {{ name = 'busy', description = 'runs hdc while the pack tool runs',\n  run = function()\n    wait_for('pack-started')\n    local ok, out = pcall(rein.proc.run, 'hdc', {{ 'list', 'targets' }})\n    rein.fs.write('busy-done', '')\n    if not ok then error(out) end\n    return out\n  end }}\n"
        ),
    );
    ws.file(
        "tools/quick.lua",
        format!(
            "{WAIT_FOR}\nreturn {{ name = 'quick', description = 'ends while the pack tool runs',\n  run = function()\n    wait_for('busy-done')\n    rein.fs.write('project-done', '')\n    return {{ done = true }}\n  end }}\n"
        ),
    );
    ws.file(
        "tools/both.lua",
        "return { name = 'both', description = 'project tools and a pack tool at once',\n  run = function()\n    return rein.parallel({\n      function() return rein.tool('quick', {}) end,\n      function() return rein.tool('team-kit.late', {}) end,\n      function() return rein.tool('busy', {}) end,\n    })\n  end }\n",
    );
    let (status, out) = rein_json(&ws, &["call", "both"]);
    assert_eq!(status, 0, "{out}");
    let branches = &out["result"];
    assert_eq!(branches[0]["value"], json!({"done": true}), "{out}");
    assert_eq!(branches[1]["ok"], json!(false), "the pack tool may not run hdc: {out}");
    assert_eq!(branches[1]["error"]["code"], json!("APPROVAL_DENIED"), "{out}");
    assert_eq!(branches[2]["ok"], json!(true), "a project tool is not held to the pack's permissions: {out}");
    assert_eq!(branches[2]["value"]["code"], json!(0), "{out}");
    let refusal = journal_entries(&ws)
        .into_iter()
        .find(|e| e["action"] == "spawn" && e["decision"] == "refused")
        .unwrap_or_else(|| panic!("the journal records the pack's refusal: {:#?}", journal_entries(&ws)));
    assert_eq!(refusal["target"], json!("hdc list targets"));
    assert_eq!(refusal["result"], json!("APPROVAL_DENIED"));
    assert_eq!(refusal["decided_by"], json!({"pack": "team-kit"}), "{refusal}");
    let allowed = journal_entries(&ws).into_iter().filter(|e| e["action"] == "spawn" && e["result"] == "ok").count();
    assert_eq!(allowed, 1, "the project tool's run is journaled as allowed");
}

/// A recipe whose only step writes a file, waits for `go`, runs one program (its budget is
/// one), and then fails on purpose so that its changes are rolled back.
const SLOW_RECIPE: &str = r#"
return { name = "slow", description = "waits for another call, then fails on purpose",
  budget = { spawns = 1 },
  steps = { { name = "wait", run = function()
    rein.fs.write("step.txt", "from the step")
    rein.fs.write("step-started", "")
    wait_for("go")
    rein.proc.run("hdc", { "list", "targets" })
    rein.error("ON_PURPOSE", "the step fails after its program ran")
  end } } }
"#;

const OTHER_TOOL: &str = r#"
return { name = "other", description = "writes a file and runs a program",
  run = function()
    rein.fs.write("other.txt", "from another call")
    local out = rein.proc.run("hdc", { "list", "targets" })
    rein.fs.write("go", "")
    return { code = out.code }
  end }
"#;

fn wait_for_file(path: &Path) {
    for _ in 0..1000 {
        if path.exists() {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("{} never appeared", path.display());
}

#[test]
fn a_call_on_a_reloaded_generation_does_not_share_a_running_step_budget_or_rollback() {
    let ws = Workspace::new();
    plain_hdc(&ws);
    ws.file("recipes/slow.lua", format!("{WAIT_FOR}{SLOW_RECIPE}"));
    ws.file("tools/other.lua", OTHER_TOOL);
    let host = Arc::new(rein::Host::builder().workspace(&ws.ws).home(&ws.home).build().unwrap());
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let (report, other) = runtime.block_on(async {
        let recipe = host.run_recipe_async("slow", json!({}), rein::RecipeOptions::default());
        let other = async {
            let started = ws.path("step-started");
            tokio::task::spawn_blocking(move || wait_for_file(&started)).await.unwrap();
            // A reload makes a new generation, whose calls do not wait for the old one's.
            ws.file("tools/other.lua", format!("{OTHER_TOOL}\n-- changed\n"));
            let reloader = host.clone();
            let outcome =
                tokio::task::spawn_blocking(move || reloader.reload(&["tools/other.lua".to_string()])).await.unwrap();
            assert!(outcome.applied, "{outcome:?}");
            host.call_async("other", json!({})).await
        };
        tokio::time::timeout(Duration::from_secs(60), async { tokio::join!(recipe, other) })
            .await
            .expect("the recipe and the other call end")
    });
    assert_eq!(other.expect("the other call succeeds"), json!({"code": 0}));
    let report = serde_json::to_value(report.expect("the recipe runs")).unwrap();
    assert_eq!(
        report["failure"]["code"],
        json!("ON_PURPOSE"),
        "the step's one program was not spent by the other call: {report:#}"
    );
    assert!(!ws.path("step.txt").exists(), "the step's own write is rolled back");
    assert_eq!(
        std::fs::read_to_string(ws.path("other.txt")).ok().as_deref(),
        Some("from another call"),
        "the other call's write is not the step's to roll back: {report:#}"
    );
}
