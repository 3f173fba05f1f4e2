//! What people see without `--json`: text, never JSON; colour only on a terminal; messages
//! that lead somewhere (file:line, the closest names, what to do about a changed file).
//! Snapshots compare whole outputs, with the parts that change run to run normalised.

use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::common::lab::{lab, Lab, KEY};
use crate::common::{human, in_terminal, rein_json, Workspace, REIN};

fn assert_no_json(what: &str, text: &str) {
    for sign in ['{', '}'] {
        assert!(!text.contains(sign), "{what} shows a JSON brace:\n{text}");
    }
    assert!(!text.contains("null"), "{what} says null:\n{text}");
}

/// `rein ARGS` as a person runs it in the lab (fakes on PATH), without `--json`.
fn lab_human(lab: &Lab, args: &[&str]) -> (i32, String, String) {
    let mut cmd = lab.ws.human_command(args);
    cmd.envs(lab.env()).env_remove("DEVECO_SDK_HOME");
    human(&mut cmd)
}

const SHIP: &str = r#"return {
  name = "ship",
  description = "Build, then install on the one device",
  params = {
    module = { type = "string", optional = true, description = "Module to build" },
    attempts = { type = "integer", default = 1 },
  },
  budget = { time_s = 600 },
  steps = {
    {
      name = "build",
      run = function(ctx)
        return ctx:tool("hvigor_build", { module = ctx.args.module })
      end,
      verify = function(_, out)
        return #out.haps > 0, "built " .. out.haps[1].path
      end,
      timeout_s = 900,
    },
    {
      name = "install",
      run = function(ctx)
        return ctx:tool("app_install", { hap = ctx.outputs.build.haps[1].path })
      end,
      retry = { max = 1 },
      approvals = { "hdc install" },
    },
  },
}
"#;

#[test]
fn explain_is_a_plan_in_words() {
    let ws = Workspace::new();
    ws.file("recipes/ship.lua", SHIP);
    let (status, out, err) = ws.human(&["recipe", "ship", "--explain"]);
    assert_eq!(status, 0, "{err}");
    assert_eq!(
        out,
        "recipe ship — Build, then install on the one device
params:
  attempts  integer, default 1
  module    string, optional    Module to build
budget: 600 s
steps:
  1. build    checked by its verify · timeout 900 s
  2. install  no verify · 1 retry · may ask a person: hdc install
nothing ran; run it with `rein recipe ship` followed by its params as a JSON object
"
    );
    assert_no_json("--explain", &out);
}

/// report.md with what changes from run to run replaced: the run id, the start, the times.
fn normalised(report: &str, run_id: &str) -> String {
    report
        .replace(run_id, "RUN")
        .lines()
        .map(|line| {
            if line.starts_with("Started ") {
                let rest = line.split_once(" s. ").map(|(_, rest)| rest).unwrap_or("");
                format!("Started T, took S s. {rest}")
            } else if line.starts_with("| ") && line.contains(" s |") {
                let cells: Vec<&str> = line.split(" | ").collect();
                cells.iter().enumerate().map(|(i, c)| if i == 3 { "S s" } else { c }).collect::<Vec<_>>().join(" | ")
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_failed_recipe_report_names_deciders_in_words() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    lab.device(KEY, json!({"install_error": 9568332}));
    lab.ws.file("recipes/ship.lua", SHIP);
    let (status, out) = lab.rein(&["--yes", "recipe", "ship", r#"{"module":"entry"}"#]);
    assert_eq!(status, 1, "{out}");
    let run_id = out["error"]["details"]["run_id"].as_str().unwrap().to_string();
    let report = std::fs::read_to_string(lab.ws.path(&format!(".rein/runs/{run_id}/report.md"))).unwrap();
    let hap = "entry/build/default/outputs/default/entry-default-signed.hap";
    let remedy = "the installed app has a different signature: uninstall it first (app_uninstall), then install again";
    let expected = format!(
        "# rein run RUN — `ship`: **failed**

Started T, took S s. Arguments: attempts = 1, module = entry

Recipe: project (`recipes/ship.lua`).

**Failed at step `install`**: INSTALL_FAILED — install failed 9568332: install sign info inconsistent.
- where: 9568332
- what to do: {remedy}

| # | step | status | time | attempts |
|---|---|---|---|---|
| 1 | build | claimed by project code (not proven) | S s | 1 |
| 2 | install | failed | S s | 2 |

**Step `build` ran project code (the project's recipe, or the tools named below): it passed a verify that project code wrote or that read what project code returned, which rein does not vouch for. Not proven by rein.**

## build
- tools: `hvigor_build` (rein's built-in, `<built-in>/tools/hvigor_build.lua`)
- evidence: `built {hap}`
- ran `hvigorw --mode module -p product=default -p buildMode=debug -p module=entry@default assembleHap --no-daemon` — allowed by rein's policy (no one was asked); exited 0

## install
- tools: `app_install` (rein's built-in, `<built-in>/tools/app_install.lua`)
- approval: spawn `hdc -p -t {KEY} install -r {hap}` allowed by `--yes`
- approval: spawn `hdc -p -t {KEY} install -r {hap}` allowed by `--yes`
- ran `hdc -p list targets -v` — allowed by rein's policy (no one was asked); exited 0
- ran `hdc -p -t {KEY} shell param get bootevent.boot.completed` — allowed by rein's policy (no one was asked); exited 0
- ran `hdc -p -t {KEY} shell power-shell wakeup` — allowed by rein's policy (no one was asked); exited 0
- ran `hdc -p -t {KEY} shell hidumper -s ScreenlockService -a -all` — allowed by rein's policy (no one was asked); exited 0
- ran `hdc -p -t {KEY} install -r {hap}` — allowed by `--yes`; exited 0
- ran `hdc -p list targets -v` — allowed by rein's policy (no one was asked); exited 0
- ran `hdc -p -t {KEY} shell param get bootevent.boot.completed` — allowed by rein's policy (no one was asked); exited 0
- ran `hdc -p -t {KEY} shell power-shell wakeup` — allowed by rein's policy (no one was asked); exited 0
- ran `hdc -p -t {KEY} shell hidumper -s ScreenlockService -a -all` — allowed by rein's policy (no one was asked); exited 0
- ran `hdc -p -t {KEY} install -r {hap}` — allowed by `--yes`; exited 0"
    );
    let shown = normalised(&report, &run_id);
    assert!(shown.starts_with(&expected), "report.md:\n{shown}\n--- expected to start with ---\n{expected}");
    assert_no_json("report.md", &report);

    // `rein runs show last` prints that report; `runs list` names the run.
    let (status, shown, _) = lab_human(&lab, &["runs", "show", "last"]);
    assert_eq!((status, shown.as_str()), (0, report.as_str()));
    let (_, listed, _) = lab_human(&lab, &["runs", "list"]);
    assert!(listed.starts_with(&format!("{run_id}  ship")) && listed.contains("failed"), "{listed}");

    // On the screen of a person running it, the remedy is said once: in the report; stderr
    // points at it.
    let (status, out, err) = lab_human(&lab, &["--yes", "recipe", "ship", r#"{"module":"entry"}"#]);
    assert_eq!(status, 1, "{err}");
    assert_eq!(format!("{out}{err}").matches(remedy).count(), 1, "stdout:\n{out}\nstderr:\n{err}");
    assert!(
        err.contains(
            "error[STEP_FAILED]: recipe ship failed at step install: INSTALL_FAILED; the report above says what to do."
        ),
        "{err}"
    );
}

#[test]
fn runs_show_last_without_runs_says_how_to_make_one() {
    let ws = Workspace::new();
    let (status, out) = rein_json(&ws, &["runs", "show", "last"]);
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("INVALID_ARGS")), "{out}");
    assert!(out["error"]["message"].as_str().unwrap().contains("rein recipe"), "{out}");
}

const WITH_DIFF: &str = r#"return {
  name = "bump",
  description = "A result with a diff among other things",
  run = function()
    return {
      version = { old = 1, new = 2 },
      files = { "AppScope/app.json5" },
      note = "dry run",
      diff = "--- a/AppScope/app.json5\n+++ b/AppScope/app.json5\n@@ -1 +1 @@\n-1\n+2\n",
    }
  end,
}
"#;

#[test]
fn a_tool_result_with_a_diff_shows_the_rest_as_text_then_the_diff() {
    let ws = Workspace::new();
    ws.file("tools/bump.lua", WITH_DIFF);
    let (status, out, err) = ws.human(&["call", "bump"]);
    assert_eq!(status, 0, "{err}");
    assert_eq!(
        out,
        "files: AppScope/app.json5
note: dry run
version:
  new: 2
  old: 1
--- a/AppScope/app.json5
+++ b/AppScope/app.json5
@@ -1 +1 @@
-1
+2
"
    );
    assert_no_json("a result with a diff", &out);
    assert!(!out.contains('\x1b'), "no colour into a pipe");

    // The example project's tool: its result is a diff and a version pair.
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hello-app");
    let project = ws.root.join("hello");
    crate::common::copy_dir(&example, &project);
    let mut cmd = Command::new(REIN);
    cmd.arg("--workspace").arg(&project).arg("--home").arg(&ws.home).args([
        "call",
        "bump_version",
        r#"{"dry_run":true}"#,
    ]);
    let (status, out, err) = human(&mut cmd);
    assert_eq!(status, 0, "{err}");
    assert!(out.contains("\n-    \"versionCode\": 1000000,\n+    \"versionCode\": 1000001,\n"), "{out}");
    assert!(out.contains("\nversion_code:\n  new: 1000001\n  old: 1000000\n--- a/AppScope/app.json5\n"), "{out}");
    // The diff shows the file as it is (braces and all); what comes before it is text.
    assert_no_json("bump_version's fields", out.split("--- a/").next().unwrap());
}

#[test]
#[cfg_attr(windows, ignore = "plays the person at a terminal through util-linux `script`, which Windows has not")]
fn colour_reaches_a_terminal_only_and_respects_no_color() {
    let ws = Workspace::new();
    ws.file("a.txt", "one\ntwo\n");
    let call = format!(
        "{REIN} --workspace {} --home {} call edit_file '{{\"path\":\"a.txt\",\"old_string\":\"two\",\"new_string\":\"2\",\"dry_run\":true}}'",
        ws.ws.display(),
        ws.home.display()
    );
    let screen = in_terminal(&format!("env -u NO_COLOR TERM=xterm-256color {call}"), "");
    assert!(screen.contains("\x1b[32m+2"), "an added line in green on a terminal: {screen:?}");
    assert!(
        screen.contains("\x1b[31m\x1b[1m-two") || screen.contains("\x1b[1m\x1b[31m-two"),
        "a removed line in red: {screen:?}"
    );
    let plain = in_terminal(&format!("env NO_COLOR=1 TERM=xterm-256color {call}"), "");
    assert!(plain.contains("-two") && !plain.contains('\x1b'), "NO_COLOR: {plain:?}");
    let (_, piped, _) =
        ws.human(&["call", "edit_file", r#"{"path":"a.txt","old_string":"two","new_string":"2","dry_run":true}"#]);
    assert!(piped.contains("+2") && !piped.contains('\x1b'), "a pipe: {piped:?}");
}

#[test]
#[cfg_attr(windows, ignore = "plays the person at a terminal through util-linux `script`, which Windows has not")]
fn a_step_shows_a_live_timer_on_a_terminal_and_plain_lines_elsewhere() {
    let ws = Workspace::new();
    ws.file(
        "recipes/wait.lua",
        r#"return { name = "wait", description = "waits", steps = { {
             name = "pause",
             run = function() rein.sleep(700) return { waited = true } end,
             verify = function(_, out) return out.waited, "waited" end,
           } } }"#,
    );
    let command = format!(
        "env -u NO_COLOR TERM=xterm-256color {REIN} --workspace {} --home {} recipe wait",
        ws.ws.display(),
        ws.home.display()
    );
    let screen = in_terminal(&command, "");
    assert!(screen.contains("[1/1] pause … 0s"), "a live line with the elapsed time: {screen:?}");
    // A project recipe's verify is project code: its outcome is never rein's green "verified".
    assert!(screen.contains("[1/1] pause claimed by project code (not proven) in 0."), "then the outcome: {screen:?}");
    assert!(!screen.contains("verified"), "{screen:?}");
    let (status, _, err) = ws.human(&["recipe", "wait"]);
    assert_eq!(status, 0, "{err}");
    assert!(
        err.starts_with("[1/1] pause started\n[1/1] pause claimed by project code (not proven) in 0."),
        "plain lines off a terminal: {err:?}"
    );
    assert!(!err.contains('\x1b') && !err.contains('\r'), "{err:?}");
}

#[test]
fn check_reports_each_problem_once_at_its_file_and_line() {
    let ws = Workspace::new();
    ws.file(
        "tools/x.lua",
        "-- a tool with a typo\nreturn {\n  name = \"x\",\n  description = \"d\",\n  params = {\n    a = { type = \"string\",\n      requried = true },\n  },\n  run = function() return {} end,\n}\n",
    );
    ws.file("tools/y.lua", "return {\n  name = \"y\",\n  descriptoin = \"d\",\n  run = function() end,\n}\n");
    let (status, out, err) = ws.human(&["check"]);
    assert_eq!(status, 1, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    let expected = "tools/x.lua:7: problem: tool x: params.a: unknown field `requried`; allowed: type, description, default, optional, required, enum, items, properties, secret. Did you mean required?
tools/y.lua:3: problem: the tool table: unknown field `descriptoin`; allowed: name, description, params, run, checks, annotations. Did you mean description?
error[TOOL_INVALID]: 2 problems in tool and recipe files; fix them and run `rein check` again
";
    assert_eq!(err, expected);
    let (_, json) = rein_json(&ws, &["check"]);
    let problems = json["error"]["details"]["problems"].as_array().unwrap();
    assert_eq!((problems.len(), problems[0]["line"].clone()), (2, json!(7)), "{json}");
}

#[test]
fn tool_not_found_suggests_the_closest_names() {
    let ws = Workspace::new();
    let (status, out) = rein_json(&ws, &["call", "edit_fiel"]);
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("TOOL_NOT_FOUND")), "{out}");
    assert_eq!(out["error"]["details"]["suggestions"], json!(["edit_file"]));
    assert!(out["error"]["message"].as_str().unwrap().contains("Did you mean edit_file?"), "{out}");
    let (_, _, err) = ws.human(&["call", "reed"]);
    assert!(err.contains("Did you mean read_file?"), "{err}");
    assert!(!err.contains("multi_edit") && !err.contains("available"), "not every tool there is: {err}");
    let (_, out) = rein_json(&ws, &["recipe", "sign-install-lanch", "--explain"]);
    assert_eq!(out["error"]["details"]["suggestions"], json!(["sign-install-launch"]), "{out}");
    let (_, out) = rein_json(&ws, &["test", "hilog_reed"]);
    assert_eq!(out["error"]["details"]["suggestions"], json!(["hilog_read"]), "{out}");
}

#[test]
fn undo_says_what_to_do_about_a_file_changed_since_the_run() {
    let Some(lab) = lab() else { return };
    let page = "entry/src/main/ets/pages/Index.ets";
    let edits = json!([{"old_string": "Hello World", "new_string": "Hello rein"}]);
    let (status, out) = lab.rein(&["recipe", "edit-and-verify", &json!({"path": page, "edits": edits}).to_string()]);
    assert_eq!(status, 0, "{out}");
    let run_id = out["result"]["run_id"].as_str().unwrap().to_string();
    let edited = std::fs::read(lab.ws.path(page)).unwrap();
    let changed = [edited.as_slice(), b"// later change\n"].concat();
    std::fs::write(lab.ws.path(page), &changed).unwrap();
    let (status, _, err) = lab_human(&lab, &["undo", "last"]);
    assert_eq!(status, 1, "{err}");
    assert!(err.starts_with(&format!("error[STALE_FILE]: {page} changed after run {run_id}")), "{err}");
    for advice in
        [format!("rein runs show {run_id}"), format!("rein undo {run_id} --force"), "keep the later change".into()]
    {
        assert!(err.contains(&advice), "says {advice}: {err}");
    }
    assert_eq!(std::fs::read(lab.ws.path(page)).unwrap(), changed, "nothing restored");
}

#[test]
fn doctor_shows_the_config_it_read_and_clean_versions() {
    let Some(lab) = lab() else { return };
    let (status, out, err) = lab_human(&lab, &["doctor"]);
    assert_eq!(status, 0, "{out}{err}");
    let config = rein::visible::shown_path(lab.ws.home.join("config.toml"));
    assert!(out.starts_with(&format!("config         {config} (read)\n")), "{out}");
    assert!(out.contains("\nhdc            3.2.0f  "), "{out}");
    assert!(!out.contains("problem"), "doctor reports no problem of its own making: {out}");
    assert_no_json("doctor", &out);

    let mut cmd = lab.ws.human_command(&["doctor"]);
    cmd.env("PATH", "/nonexistent").env_remove("DEVECO_SDK_HOME").env_remove("OHOS_BASE_SDK_HOME");
    let (status, out, err) = human(&mut cmd);
    assert_eq!(status, 1, "{out}{err}");
    assert!(out.contains("hdc            MISSING, which built-in tools need:"), "{out}");
    assert!(err.contains("error[TOOLCHAIN_NOT_FOUND]"), "{err}");
}

/// A pack folder next to the workspace.
fn team_kit(ws: &Workspace) -> std::path::PathBuf {
    let dir = ws.root.join("team-kit");
    std::fs::create_dir_all(dir.join("tools")).unwrap();
    std::fs::write(
        dir.join("pack.toml"),
        "name = \"team-kit\"\nversion = \"1.0.0\"\ndescription = \"Our helpers\"\nrein = \">=0.1\"\npermissions = []\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("tools/hi.lua"),
        "return { name = 'hi', description = 'hi', run = function() return {} end }",
    )
    .unwrap();
    dir
}

#[test]
#[cfg_attr(windows, ignore = "plays the person at a terminal through util-linux `script`, which Windows has not")]
fn pack_add_list_and_update_read_as_text() {
    let ws = Workspace::new();
    let source = team_kit(&ws);
    let sha = rein::packs::hash::content_hash(&source).unwrap();
    let pack = |args: String| {
        in_terminal(
            &format!("{REIN} --workspace {} --home {} pack {args}", ws.ws.display(), ws.home.display()),
            "yes\n",
        )
    };
    let screen = pack(format!("add {}", source.display()));
    assert!(screen.contains(&format!("installed pack team-kit 1.0.0 (sha256 {}) into", &sha[..12])), "{screen}");
    assert!(screen.contains("its tools are `team-kit.<tool>`"), "{screen}");

    let (status, out, err) = ws.human(&["pack", "list"]);
    assert_eq!(status, 0, "{err}");
    // rein.lock records a folder next to the workspace as a path relative to it.
    assert_eq!(
        out,
        format!("NAME      VERSION  SOURCE       SHA256\nteam-kit  1.0.0    ../team-kit  {}\n", &sha[..12])
    );
    assert_no_json("pack list", &out);

    std::fs::write(
        source.join("tools/hi.lua"),
        "return { name = 'hi', description = 'hello', run = function() return {} end }",
    )
    .unwrap();
    let new_sha = rein::packs::hash::content_hash(&source).unwrap();
    let screen = pack("update".into());
    assert!(screen.contains(&format!("team-kit  {} → {}", &sha[..12], &new_sha[..12])), "{screen}");
    let (_, verified, _) = ws.human(&["pack", "verify"]);
    assert_eq!(verified, "ok  team-kit\n");
}

/// Issue 40: a script error in a recipe's step names the recipe's line; the Lua traceback is
/// there with `-v` (and in `--json`'s details), not in every failure a person reads.
#[test]
fn a_script_error_names_its_line_and_shows_the_traceback_with_v() {
    let ws = Workspace::new();
    ws.file(
        "recipes/walk.lua",
        "return {\n  name = \"walk\",\n  description = \"d\",\n  steps = {\n    {\n      name = \"modules\",\n      run = function(ctx)\n        local doc = {}\n        for _, m in ipairs(doc.modulez) do\n        end\n      end,\n    },\n  },\n}\n",
    );
    let (status, out, err) = ws.human(&["recipe", "walk"]);
    assert_eq!(status, 1, "{err}");
    assert!(out.contains("recipes/walk.lua:9: attempt to index a nil value"), "the report says where: {out}");
    assert!(!err.contains("stack traceback") && !err.contains("in function"), "no traceback without -v: {err}");
    assert!(err.contains("-v shows the Lua traceback"), "{err}");
    let (_, _, verbose) = ws.human(&["-v", "recipe", "walk"]);
    assert!(verbose.contains("recipes/walk.lua:9: in"), "-v shows the traceback: {verbose}");
    let (_, json) = rein_json(&ws, &["recipe", "walk"]);
    let traceback = json["error"]["details"]["failure"]["details"]["traceback"].as_str();
    assert!(traceback.is_some_and(|t| t.contains("recipes/walk.lua:9:")), "{json}");
}

/// Issue 40: a recipe that went well printed its whole report (30 lines of "ran hdc …
/// allowed by rein's policy"); now its verdict, its steps one a line and where the report is,
/// the whole report with `-v` (or `rein runs show`).
#[test]
fn a_recipe_that_succeeds_prints_a_short_summary_and_the_whole_report_with_v() {
    let ws = Workspace::new();
    ws.file(
        "recipes/two.lua",
        "return {\n  name = \"two\",\n  description = \"d\",\n  steps = {\n    { name = \"first\", run = function() return { n = 1 } end, verify = function(_, out) return out.n == 1, \"one\" end },\n    { name = \"second_step\", run = function() return {} end },\n  },\n}\n",
    );
    let (status, out, err) = ws.human(&["recipe", "two"]);
    assert_eq!(status, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert!(lines[0].starts_with("recipe two succeeded in "), "{out}");
    // A project recipe says whose code it is, and rein vouches for none of its verifies.
    assert_eq!(lines[1], "Recipe: project (`recipes/two.lua`).", "{out}");
    assert!(lines[2].starts_with("  1. first        claimed by project code (not proven)  "), "{out}");
    assert!(lines[3].starts_with("  2. second_step  done (no verify)  "), "{out}");
    let run_id = out.split("rein runs show ").nth(1).unwrap().trim_end_matches("`)\n");
    assert!(lines[4].starts_with("report: ") && lines[4].contains(&format!("{run_id}/report.md")), "{out}");
    assert!(!out.contains("| # |"), "not the whole report: {out}");
    let (_, verbose, _) = ws.human(&["-v", "recipe", "two"]);
    assert!(
        verbose.contains("`two`: **succeeded**") && verbose.contains("| 2 | second_step | done (no verify) |"),
        "{verbose}"
    );
}

/// Issue 40: `rein undo last` printed nothing, `rein runs list`'s columns drifted with the
/// length of a run id's pid and a recipe's name.
#[test]
fn undo_says_what_it_did_and_runs_list_keeps_its_columns() {
    let ws = Workspace::new();
    ws.file("a.txt", "one\n");
    ws.file(
        "recipes/edit.lua",
        "return {\n  name = \"edit\",\n  description = \"d\",\n  steps = {\n    { name = \"edit\", run = function(ctx) return ctx:tool(\"edit_file\", { path = \"a.txt\", old_string = \"one\", new_string = \"two\" }) end },\n  },\n}\n",
    );
    ws.file(
        "recipes/a_recipe_with_a_long_name_indeed.lua",
        "return { name = \"a_recipe_with_a_long_name_indeed\", description = \"d\", steps = { { name = \"s\", run = function() return {} end } } }\n",
    );
    assert_eq!(ws.human(&["recipe", "a_recipe_with_a_long_name_indeed"]).0, 0);
    let (_, undone, err) = ws.human(&["undo", "last"]);
    assert!(
        undone.starts_with("run ") && undone.ends_with("changed no file of the workspace: nothing to undo\n"),
        "{undone}{err}"
    );
    assert_eq!(ws.human(&["recipe", "edit"]).0, 0);
    assert_eq!(std::fs::read_to_string(ws.path("a.txt")).unwrap(), "two\n");
    let (status, undone, err) = ws.human(&["undo", "last"]);
    assert_eq!(status, 0, "{err}");
    assert!(undone.starts_with("undid run ") && undone.ends_with(":\n  restored a.txt\n"), "{undone}");
    assert_eq!(std::fs::read_to_string(ws.path("a.txt")).unwrap(), "one\n");

    let (_, listed, _) = ws.human(&["runs", "list"]);
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 2, "{listed}");
    let column = |line: &str, word: &str| line.find(word).unwrap_or_else(|| panic!("{word} in {line}"));
    assert_eq!(column(lines[0], "a_recipe"), column(lines[1], "edit"), "{listed}");
    assert_eq!(column(lines[0], "succeeded"), column(lines[1], "succeeded"), "{listed}");
    assert_eq!(lines[0].len(), lines[1].len(), "{listed}");
}

/// Issue 40: `rein --json runs show last --format junit` printed the report's JSON; `--json`
/// prints one JSON object (DESIGN.md's CLI contract), so the form asked for is its `text`.
#[test]
fn json_runs_show_in_a_text_form_holds_that_text() {
    let ws = Workspace::new();
    ws.file("recipes/one.lua", "return { name = \"one\", description = \"d\", steps = { { name = \"s\", run = function() return {} end } } }\n");
    assert_eq!(ws.human(&["recipe", "one"]).0, 0);
    let (status, junit) = rein_json(&ws, &["runs", "show", "last", "--format", "junit"]);
    assert_eq!(status, 0, "{junit}");
    assert_eq!(junit["result"]["format"], json!("junit"), "{junit}");
    let text = junit["result"]["text"].as_str().unwrap();
    assert!(text.starts_with("<?xml") && text.contains("<testcase"), "{text}");
    let (_, md) = rein_json(&ws, &["runs", "show", "last", "--format", "md"]);
    assert!(md["result"]["text"].as_str().unwrap().starts_with("# rein run "), "{md}");
    let (_, report) = rein_json(&ws, &["runs", "show", "last", "--format", "json"]);
    assert_eq!(report["result"]["steps"][0]["name"], json!("s"), "the report itself: {report}");
    let (_, plain) = rein_json(&ws, &["runs", "show", "last"]);
    assert_eq!(plain["result"]["run_id"], report["result"]["run_id"], "{plain}");
}
