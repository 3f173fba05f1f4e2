//! The authoring kit: editor stubs that match the live API exactly, scaffolds that pass
//! `rein check` and `rein test` as generated, completions and the man page.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use crate::common::{human, in_terminal, rein_json, Workspace, REIN};

/// A project tool that reports, from inside the sandbox, every name the live API has: each
/// function or value under `rein` (walked recursively), the globals rein adds, and the public
/// names of each prelude module it is given.
const API_NAMES: &str = r#"
local function walk(t, prefix, out)
  for k, v in pairs(t) do
    local path = prefix .. "." .. k
    if type(v) == "table" then
      walk(v, path, out)
    else
      table.insert(out, path)
    end
  end
end

return {
  name = "api_names",
  description = "The live API's names",
  params = { modules = { type = "array", items = { type = "string" } } },
  run = function(args, ctx)
    local rein_names = {}
    walk(rein, "rein", rein_names)
    local modules = {}
    for _, name in ipairs(args.modules) do
      local keys = {}
      for k in pairs(require(name)) do
        table.insert(keys, k)
      end
      modules[name] = keys
    end
    local ctx_keys = {}
    for k in pairs(ctx) do
      table.insert(ctx_keys, k)
    end
    return {
      rein = rein_names,
      globals = { require = type(require), print = type(print) },
      modules = modules,
      ctx = ctx_keys,
    }
  end,
}
"#;

/// The names a stub file declares under `owner` (`rein.` or `M.`): `function rein.fs.read(`
/// gives `fs.read`, `rein.json.null = nil` gives `json.null`; `rein.fs = {}` is a namespace,
/// not a name, while a module's `M.install = {}` is one of its names.
fn declared(stub: &str, owner: &str) -> BTreeSet<String> {
    stub.lines()
        .filter_map(|line| {
            if let Some(rest) = line.strip_prefix("function ").and_then(|r| r.strip_prefix(owner)) {
                return rest.split_once('(').map(|(name, _)| name.to_string());
            }
            let (name, value) = line.strip_prefix(owner)?.split_once(" = ")?;
            (owner != "rein." || value != "{}").then(|| name.to_string())
        })
        .collect()
}

fn strings(value: &Value) -> BTreeSet<String> {
    value.as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect()
}

#[test]
fn the_stubs_declare_every_live_function_and_nothing_else() {
    let ws = Workspace::new();
    ws.file("tools/api_names.lua", API_NAMES);
    let types = ws.root.join("types");
    let (status, out) = rein_json(&ws, &["types", types.to_str().unwrap()]);
    assert_eq!(status, 0, "{out}");
    let rein_stub = std::fs::read_to_string(types.join("rein.lua")).unwrap();
    assert!(rein_stub.starts_with("---@meta"), "a LuaLS meta file");

    // Every prelude module shipped in the binary has a stub.
    let mut modules = Vec::new();
    for entry in walk(&types.join("prelude")) {
        let rel = entry.strip_prefix(types.join("prelude")).unwrap().with_extension("");
        modules.push((dotted(&rel), entry));
    }
    let shipped: BTreeSet<String> = walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("prelude"))
        .iter()
        .map(|p| p.strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")).join("prelude")).unwrap().with_extension(""))
        .map(|p| dotted(&p))
        .collect();
    assert_eq!(modules.iter().map(|(m, _)| m.clone()).collect::<BTreeSet<_>>(), shipped);

    let names: Vec<&str> = modules.iter().map(|(m, _)| m.as_str()).collect();
    let (status, live) = ws.call("api_names", &json!({"modules": names}));
    assert_eq!(status, 0, "{live}");
    let live = &live["result"];

    let stubbed = declared(&rein_stub, "rein.");
    let live_rein: BTreeSet<String> =
        strings(&live["rein"]).into_iter().map(|n| n.strip_prefix("rein.").unwrap().to_string()).collect();
    let missing: Vec<_> = live_rein.difference(&stubbed).collect();
    let extra: Vec<_> = stubbed.difference(&live_rein).collect();
    assert!(missing.is_empty() && extra.is_empty(), "not in the stubs: {missing:?}; not in the API: {extra:?}");
    assert!(live_rein.len() >= 24 && live_rein.contains("fs.read"), "the walk saw the whole namespace: {live_rein:?}");
    for global in ["require", "print"] {
        assert_eq!(live["globals"][global], json!("function"));
        assert!(rein_stub.contains(&format!("\nfunction {global}(")), "{global} is declared");
    }

    for (module, path) in &modules {
        let stub = std::fs::read_to_string(path).unwrap();
        assert!(stub.starts_with(&format!("---@meta {module}\n")), "{module}: {stub}");
        let stubbed = declared(&stub, "M.");
        let live_keys = strings(&live["modules"][module]);
        assert_eq!(stubbed, live_keys, "{module}: the stub and the module disagree");
    }

    // The tool ctx class lists exactly what a tool's ctx holds.
    let tables = std::fs::read_to_string(types.join("tables.lua")).unwrap();
    assert_eq!(class_fields(&tables, "rein.ToolContext"), strings(&live["ctx"]));
}

/// The `---@field` names of `class` in a stub.
fn class_fields(stub: &str, class: &str) -> BTreeSet<String> {
    let start = stub.find(&format!("---@class {class}\n")).unwrap_or_else(|| panic!("no class {class}"));
    stub[start..]
        .lines()
        .skip(1)
        .map_while(|line| line.strip_prefix("---@field "))
        .map(|field| field.split_whitespace().next().unwrap().trim_end_matches('?').to_string())
        .collect()
}

/// A module's path relative to prelude/ (`harmony/hdc`, `harmony\hdc` on Windows) as its name.
fn dotted(rel: &Path) -> String {
    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join(".")
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if entry.file_type().unwrap().is_dir() {
            files.extend(walk(&entry.path()));
        } else if entry.path().extension().is_some_and(|e| e == "lua") {
            files.push(entry.path());
        }
    }
    files.sort();
    files
}

#[test]
fn a_step_ctx_holds_what_its_class_declares() {
    let ws = Workspace::new();
    ws.file(
        "recipes/keys.lua",
        r#"return { name = "keys", description = "ctx keys", steps = { {
             name = "look",
             run = function(ctx)
               local keys = {}
               for k in pairs(ctx) do
                 if k:sub(1, 1) ~= "_" then table.insert(keys, k) end
               end
               return { keys = keys }
             end,
           } } }"#,
    );
    let (status, out) = rein_json(&ws, &["recipe", "keys"]);
    assert_eq!(status, 0, "{out}");
    let live = strings(&out["result"]["steps"][0]["output"]["keys"]);
    let types = ws.root.join("types");
    assert_eq!(rein_json(&ws, &["types", types.to_str().unwrap()]).0, 0);
    let tables = std::fs::read_to_string(types.join("tables.lua")).unwrap();
    assert_eq!(class_fields(&tables, "rein.StepContext"), live);
}

/// The agent makes `.luarc.json` a link to a JSON file of the person's outside the workspace
/// (a registry login, say), then the person runs `rein types`: rein read the file through the
/// link, added the stubs folder, and wrote the whole of it into the workspace's `.luarc.json`
/// — the person's secret where the agent reads it. A FIFO there waited for ever. Now anything
/// but a plain file is left alone, and nothing outside is read or written.
#[test]
#[cfg(unix)]
fn types_leaves_a_luarc_that_is_a_link_or_a_fifo_alone_and_reads_nothing_through_it() {
    let ws = Workspace::new();
    let secret = ws.root.join("registry-login.json");
    std::fs::write(&secret, r#"{"token": "the person's secret"}"#).unwrap();
    std::os::unix::fs::symlink(&secret, ws.path(".luarc.json")).unwrap();
    let mut cmd = ws.command(&["types"]);
    let done = crate::common::output_within(&mut cmd, None, std::time::Duration::from_secs(60));
    let out: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(out["result"]["luarc"]["action"], json!("left_alone"), "{out}");
    assert!(out["result"]["luarc"]["why"].as_str().unwrap().contains("link"), "{out}");
    assert_eq!(std::fs::read_link(ws.path(".luarc.json")).unwrap(), secret, "the link stays as it was");
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), r#"{"token": "the person's secret"}"#);

    std::fs::remove_file(ws.path(".luarc.json")).unwrap();
    assert!(Command::new("mkfifo").arg(ws.path(".luarc.json")).status().unwrap().success());
    let mut cmd = ws.command(&["types"]);
    let done = crate::common::output_within(&mut cmd, None, std::time::Duration::from_secs(60));
    let out: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(out["result"]["luarc"]["action"], json!("left_alone"), "{out}");
}

/// The agent makes `tools` a link to a folder outside the workspace before the person runs
/// `rein init`: rein took the link for the workspace's tools folder and wrote its example tool
/// through it (`rein new tool` too). Now a link where rein makes or fills a folder is
/// refused, and nothing lands outside.
#[test]
#[cfg(unix)]
fn init_writes_nothing_through_a_link_where_it_makes_a_folder() {
    let ws = Workspace::new();
    let outside = ws.root.join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, ws.path("tools")).unwrap();
    for args in [&["init"][..], &["new", "tool", "lands_outside"]] {
        let (status, out) = rein_json(&ws, args);
        assert_eq!((status, out["error"]["code"].as_str()), (2, Some("INVALID_ARGS")), "{args:?}: {out}");
        assert!(out["error"]["message"].as_str().unwrap().contains("is a link"), "{args:?}: {out}");
    }
    std::os::unix::fs::symlink(&outside, ws.path("recipes")).unwrap();
    let (status, out) = rein_json(&ws, &["new", "recipe", "lands-outside"]);
    assert_eq!(status, 2, "{out}");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "nothing landed outside");
}

/// A cloned repository holds `.rein` (or `.rein/types`) as a link to a folder of the person's
/// outside the workspace, and the person runs `rein types` or `rein init`: rein made the stubs
/// folder and wrote every stub through the link, outside (a folder named like one the person
/// keeps would have its files replaced). Now the stubs folder inside the workspace is made and
/// written through folders held open beneath it, following no link; nothing lands outside.
#[test]
#[cfg(unix)]
fn types_and_init_write_no_stubs_through_a_link_in_the_workspace() {
    let ws = Workspace::new();
    let outside = ws.root.join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, ws.path(".rein")).unwrap();
    for args in [&["types"][..], &["init"]] {
        let mut cmd = ws.command(args);
        let done = crate::common::output_within(&mut cmd, None, std::time::Duration::from_secs(60));
        assert!(!done.status.success(), "{args:?}: {}", String::from_utf8_lossy(&done.stdout));
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "{args:?}: nothing landed outside");
    }
    std::fs::remove_file(ws.path(".rein")).unwrap();
    std::fs::create_dir(ws.path(".rein")).unwrap();
    std::os::unix::fs::symlink(&outside, ws.path(".rein/types")).unwrap();
    let mut cmd = ws.command(&["types"]);
    let done = crate::common::output_within(&mut cmd, None, std::time::Duration::from_secs(60));
    assert!(!done.status.success(), "{}", String::from_utf8_lossy(&done.stdout));
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "nothing landed outside");
    std::fs::remove_file(ws.path(".rein/types")).unwrap();
    let mut cmd = ws.command(&["types"]);
    let done = crate::common::output_within(&mut cmd, None, std::time::Duration::from_secs(60));
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stdout));
    assert!(ws.path(".rein/types").is_dir());
}

#[test]
fn types_writes_luarc_and_selene_std_and_keeps_other_settings() {
    let ws = Workspace::new();
    ws.file(".luarc.json", r#"{"hint.enable": true}"#);
    let (status, out) = rein_json(&ws, &["types"]);
    assert_eq!(status, 0, "{out}");
    assert_eq!(out["result"]["luarc"]["action"], json!("updated"));
    let luarc: Value = serde_json::from_slice(&ws.read(".luarc.json")).unwrap();
    assert_eq!(luarc["workspace.library"], json!([".rein/types"]));
    assert_eq!(luarc["hint.enable"], json!(true), "the person's own settings stay");
    assert_eq!(luarc["runtime.version"], json!("Lua 5.4"));
    let shipped = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("rein.yml")).unwrap();
    assert_eq!(
        String::from_utf8(ws.read(".rein/types/rein.yml")).unwrap(),
        shipped,
        "the same selene std as the repo's"
    );
    let (status, again) = rein_json(&ws, &["types"]);
    assert_eq!((status, again["result"]["luarc"]["action"].as_str()), (0, Some("unchanged")), "{again}");
}

#[test]
fn init_then_new_tool_then_check_and_test_pass_in_a_fresh_directory() {
    let ws = Workspace::new();
    let (status, out, err) = ws.human(&["init"]);
    assert_eq!(status, 0, "{out}{err}");
    for made in ["tools/app_version.lua", "rein.toml", ".luarc.json", ".rein/types/rein.lua", ".rein/types/tables.lua"]
    {
        assert!(ws.path(made).is_file(), "init made {made}: {out}");
    }
    assert!(ws.path("recipes").is_dir());
    let toml = String::from_utf8(ws.read("rein.toml")).unwrap();
    assert!(
        toml.lines().all(|l| l.is_empty() || l.starts_with('#')),
        "rein.toml only explains, it sets nothing:\n{toml}"
    );
    let (status, out, err) = ws.human(&["new", "tool", "x"]);
    assert_eq!((status, out.trim()), (0, "created  tools/x.lua"), "{err}");
    let (status, out, err) = ws.human(&["new", "recipe", "ship-it"]);
    assert_eq!((status, out.trim()), (0, "created  recipes/ship-it.lua"), "{err}");

    let (status, out) = rein_json(&ws, &["check"]);
    assert_eq!(status, 0, "{out}");
    assert!(ws.human(&["check"]).2.is_empty(), "a clean check warns about nothing");
    let (status, out) = rein_json(&ws, &["test"]);
    assert_eq!(status, 0, "{out}");
    let checks = out["result"]["checks"].as_array().unwrap();
    for tool in ["x", "app_version"] {
        let ran: Vec<&Value> = checks.iter().filter(|c| c["tool"] == tool).collect();
        assert!(
            !ran.is_empty() && ran.iter().all(|c| c["passed"] == true),
            "{tool}'s checks ran and passed: {checks:?}"
        );
    }
    let (status, out) = rein_json(&ws, &["recipe", "ship-it", "--explain"]);
    assert_eq!(status, 0, "{out}");

    // A second init keeps everything and changes nothing.
    let before = ws.snapshot();
    let (status, out) = rein_json(&ws, &["init"]);
    assert_eq!(status, 0, "{out}");
    assert_eq!(out["result"]["created"], json!([]));
    assert!(out["result"]["kept"].as_array().unwrap().contains(&json!("rein.toml")));
    before.assert_unchanged("a second rein init");
}

#[test]
fn new_refuses_bad_or_taken_names_and_writes_nothing() {
    let ws = Workspace::new();
    let before = ws.snapshot();
    let (status, out) = rein_json(&ws, &["new", "tool", "Deploy-App"]);
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("INVALID_ARGS")), "{out}");
    assert!(out["error"]["message"].as_str().unwrap().contains("deploy_app"), "suggests a valid name: {out}");
    let (status, out) = rein_json(&ws, &["new", "pack", "Team_Kit"]);
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("INVALID_ARGS")), "{out}");
    before.assert_unchanged("refused names");

    let missing = ws.root.join("nowhere");
    let mut cmd = Command::new(REIN);
    cmd.arg("--workspace").arg(&missing).arg("--home").arg(&ws.home).args(["--json", "init"]);
    let (status, out) = crate::common::run_json(&mut cmd, None);
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("INVALID_CONFIG")), "{out}");
    assert!(!missing.exists(), "init never creates the workspace itself");

    ws.file("tools/x.lua", "-- mine\n");
    let (status, out) = rein_json(&ws, &["new", "tool", "x"]);
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("INVALID_ARGS")), "{out}");
    assert!(out["error"]["message"].as_str().unwrap().contains("exists"), "{out}");
    assert_eq!(ws.read("tools/x.lua"), b"-- mine\n", "never overwritten");
}

#[test]
#[cfg_attr(windows, ignore = "plays the person at a terminal through util-linux `script`, which Windows has not")]
fn a_new_pack_passes_check_and_test_and_installs_as_generated() {
    let ws = Workspace::new();
    let mut cmd = ws.human_command(&["new", "pack", "team-kit"]);
    cmd.current_dir(&ws.root);
    let (status, out, err) = human(&mut cmd);
    assert_eq!(status, 0, "{out}{err}");
    let pack = ws.root.join("team-kit");
    for file in ["pack.toml", "README.md", "tools/hello.lua"] {
        assert!(pack.join(file).is_file(), "{file}: {out}");
    }
    for empty in ["recipes", "prelude"] {
        assert!(!pack.join(empty).exists(), "no empty {empty}/ that git would not keep: {out}");
    }
    assert!(!out.contains("recipes/"), "nothing listed that was not made: {out}");
    let in_pack = |args: &[&str]| {
        let mut cmd = Command::new(REIN);
        cmd.arg("--workspace").arg(&pack).arg("--home").arg(&ws.home).arg("--json").args(args);
        crate::common::run_json(&mut cmd, None)
    };
    assert_eq!(in_pack(&["check"]).0, 0, "{:?}", in_pack(&["check"]));
    let (status, out) = in_pack(&["test", "hello"]);
    assert_eq!((status, out["result"]["checks"][0]["passed"].clone()), (0, json!(true)), "{out}");

    let command =
        format!("{REIN} --workspace {} --home {} pack add {}", ws.ws.display(), ws.home.display(), pack.display());
    let screen = in_terminal(&command, "yes\n");
    assert!(screen.contains("installed pack team-kit 0.1.0"), "{screen}");
    let (status, out) = rein_json(&ws, &["call", "team-kit.hello", r#"{"who":"team"}"#]);
    assert_eq!((status, out["result"]["greeting"].as_str()), (0, Some("Hello, team!")), "{out}");
}

#[test]
#[cfg_attr(windows, ignore = "runs bash (the README's shell commands), which Windows has not")]
fn completions_for_every_shell_and_the_man_page_render() {
    if !crate::common::real_tools::program_runs(
        "completions_for_every_shell_and_the_man_page_render",
        "groff",
        &["--version"],
        "groff-base",
    ) {
        return;
    }
    let ws = Workspace::new();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let (status, script, err) = ws.human(&["completions", shell]);
        assert_eq!(status, 0, "{shell}: {err}");
        for word in ["rein", "completions", "recipe", "doctor"] {
            assert!(script.contains(word), "{shell} completes {word}");
        }
    }
    let (_, bash, _) = ws.human(&["completions", "bash"]);
    let file = ws.root.join("rein.bash");
    std::fs::write(&file, bash).unwrap();
    let syntax = Command::new("bash").arg("-n").arg(&file).output().expect("bash");
    assert!(syntax.status.success(), "the bash script parses: {}", String::from_utf8_lossy(&syntax.stderr));

    let page = render_man(&ws, &["man"]);
    for part in ["NAME", "SYNOPSIS", "SUBCOMMANDS", "rein-completions(1)", "--workspace"] {
        assert!(page.contains(part), "the rendered page has {part}:\n{page}");
    }
    let page = render_man(&ws, &["man", "pack", "add"]);
    assert!(page.contains("rein-pack-add") && page.contains("git"), "a subcommand's page:\n{page}");
    let (status, out) = rein_json(&ws, &["man", "pakc"]);
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("INVALID_ARGS")), "{out}");
    assert!(out["error"]["message"].as_str().unwrap().contains("Did you mean pack?"), "{out}");
}

/// `rein ARGS` (a man page), rendered by groff as `man` would, without overstrike.
fn render_man(ws: &Workspace, args: &[&str]) -> String {
    let (status, roff, err) = ws.human(args);
    assert_eq!(status, 0, "{err}");
    assert!(roff.contains("\n.TH "), "roff with a title: {}", &roff[..200.min(roff.len())]);
    let page = ws.root.join("page.1");
    std::fs::write(&page, &roff).unwrap();
    let rendered = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-P-cbou"])
        .arg(&page)
        .output()
        .expect("groff renders man pages (.ci/setup installs it)");
    let warnings = String::from_utf8_lossy(&rendered.stderr);
    assert!(rendered.status.success() && warnings.is_empty(), "groff: {warnings}");
    String::from_utf8_lossy(&rendered.stdout).into_owned()
}

#[test]
fn every_positional_argument_has_help_and_pack_add_names_its_sources() {
    let ws = Workspace::new();
    let (_, top, _) = ws.human(&["--help"]);
    let commands = subcommands(&top);
    assert!(commands.contains(&"types".to_string()) && commands.contains(&"pack".to_string()), "{commands:?}");
    let mut paths: Vec<Vec<String>> = commands.iter().map(|c| vec![c.clone()]).collect();
    let mut checked = 0;
    while let Some(path) = paths.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let (status, help, err) = ws.human(&args);
        assert_eq!(status, 0, "{path:?}: {err}");
        for sub in subcommands(&help) {
            paths.push([path.clone(), vec![sub]].concat());
        }
        for line in section(&help, "Arguments:") {
            let described = line.trim_start().split_once("  ").is_some_and(|(_, text)| !text.trim().is_empty());
            assert!(described, "`rein {}`: argument without help: {line:?}\n{help}", path.join(" "));
            checked += 1;
        }
    }
    assert!(checked >= 10, "saw the positional arguments ({checked})");
    let (_, add, _) = ws.human(&["pack", "add", "--help"]);
    assert!(add.contains("folder") && add.contains("git"), "{add}");
}

fn section<'a>(help: &'a str, title: &str) -> Vec<&'a str> {
    help.lines()
        .skip_while(|l| *l != title)
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter(|l| l.trim_start().starts_with(['<', '[']))
        .collect()
}

fn subcommands(help: &str) -> Vec<String> {
    section_lines(help, "Commands:")
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(String::from)
        .collect()
}

fn section_lines<'a>(help: &'a str, title: &str) -> Vec<&'a str> {
    help.lines().skip_while(|l| *l != title).skip(1).take_while(|l| l.starts_with("  ")).collect()
}

#[test]
#[cfg_attr(windows, ignore = "runs bash (the README's shell commands), which Windows has not")]
fn the_fakes_readme_points_a_home_at_the_fakes_as_it_says() {
    let Some(jar) = crate::common::real_tools::hap_sign_tool("the_fakes_readme_points_a_home_at_the_fakes_as_it_says")
    else {
        return;
    };
    let ws = Workspace::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = crate::common::shell_block("tests/fakes/README.md", "## Pointing a rein home at the fakes");
    let bin = Path::new(REIN).parent().unwrap();
    // The fakes built for this run first: a run of the integration tests alone builds them
    // (`fake_device_dir`), which relinks `rein-fake-device` in `target/debug` (its features
    // differ from `cargo test`'s); done before bash looks for it, never while.
    let device = crate::common::real_tools::fake_device_dir();
    let mut cmd = Command::new("bash");
    cmd.args(["-euo", "pipefail", "-c", &script])
        .current_dir(root)
        .env("PATH", format!("{}:{}:{}", device.display(), bin.display(), std::env::var("PATH").unwrap_or_default()))
        .env("TMPDIR", &ws.root)
        .env("REIN_REAL_HAP_SIGN_TOOL", jar)
        .env_remove("REIN_HOME");
    // Making the signing material is eight JVM starts: more than one call's bound.
    let done = crate::common::output_within(&mut cmd, None, std::time::Duration::from_secs(600));
    let (status, out, err) = (
        done.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&done.stdout).into_owned(),
        String::from_utf8_lossy(&done.stderr).into_owned(),
    );
    assert_eq!(status, 0, "the README's commands run as written:\n{out}\n{err}");
    for line in ["hdc            3.2.0f", "hap-sign-tool  1.0.0", "recipe sign-install-launch succeeded in "] {
        assert!(out.contains(line), "{line}:\n{out}");
    }
}

/// Issue 40: `rein new tool bump_build` wrote a "count lines" tool, which fits no name but its
/// own; the template is neutral: it says it is the generated start and what to rewrite.
#[test]
fn a_new_tool_is_a_neutral_start_whatever_its_name() {
    let ws = Workspace::new();
    let (status, out, err) = ws.human(&["new", "tool", "bump_build"]);
    assert_eq!(status, 0, "{out}{err}");
    let text = String::from_utf8(ws.read("tools/bump_build.lua")).unwrap();
    assert!(!text.to_lowercase().contains("count"), "no other tool's job: {text}");
    assert!(text.contains("description = \"bump_build, as generated: "), "{text}");
    assert!(text.contains("Rewrite this with what bump_build does."), "{text}");
    let (status, out) = rein_json(&ws, &["test", "bump_build"]);
    assert_eq!(status, 0, "its checks pass as generated: {out}");
}
