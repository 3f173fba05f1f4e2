//! A native module an embedding program registers is used by Lua tools like a built-in: its
//! writes go through the kernel and its policy (scope, approvals, pack permissions), its table
//! is sealed, a wrong call is a coded failure and a load problem with its line, its checks run
//! with it, and the stubs show it. Tools can be given as text.

use serde_json::{json, Value};

use crate::common::Workspace;
use crate::events::fake_hdc_workspace;
use rein::{Code, DecidedBy, EventKind};
use rein::{NativeFunction, NativeModule};

/// `rein.ide.save(path, text)`: writes through the kernel, as the call it serves.
fn ide_module() -> NativeModule {
    let save = NativeFunction::new("save", "Saves a note the IDE shows.", |call, args| {
        let (path, text) = (args[0].as_str().unwrap_or_default(), args[1].as_str().unwrap_or_default());
        let written = call.write(path, text.as_bytes(), None)?;
        Ok(json!({"path": written.path, "bytes": written.bytes, "caller": call.caller()}))
    })
    .param("path", "string", "where, relative to the workspace")
    .param("text", "string", "")
    .returns("{path: string, bytes: integer}", "what was written");
    NativeModule::new("ide", "The IDE around the project.").function(save)
}

const NOTE_TOOL: &str = r#"return {
  name = "note", description = "saves a note through the IDE",
  params = { path = { type = "string" }, text = { type = "string" } },
  checks = { { args = { path = "a.md", text = "x" }, expect = { bytes = 1, path = "a.md" } } },
  run = function(args)
    local ok, err = pcall(rein.ide.save, args.path, args.text)
    if ok then return err end
    return { refused = err.code, message = err.message }
  end,
}"#;

fn host_with_ide(ws: &Workspace) -> rein::Host {
    rein::Host::builder()
        .workspace(&ws.ws)
        .home(&ws.home)
        .module(ide_module())
        .tool_source("note", NOTE_TOOL)
        .build()
        .expect("a host with the ide module")
}

#[test]
fn a_native_module_writes_through_the_kernel_inside_the_workspace_and_is_refused_outside() {
    let ws = Workspace::new();
    let host = host_with_ide(&ws);
    let inside = host.call("note", json!({"path": "notes/today.md", "text": "ship it\n"})).unwrap();
    assert_eq!(inside["bytes"], 8, "{inside}");
    assert_eq!(inside["caller"], "note", "the function knows which tool called it: {inside}");
    assert_eq!(ws.read("notes/today.md"), b"ship it\n");

    let outside = ws.root.join("outside.md");
    let before = ws.snapshot();
    let refused = host.call("note", json!({"path": outside.display().to_string(), "text": "x"})).unwrap();
    assert_eq!(refused["refused"], "APPROVAL_REQUIRED", "a coded failure the script can catch: {refused}");
    assert!(refused["message"].as_str().unwrap().contains("rein approvals grant"), "{refused}");
    before.assert_unchanged("a refused native write");
    let journal = crate::common::journal_text(&ws.ws);
    let refusal = journal.lines().find(|l| l.contains("outside.md")).expect("the refusal is journaled");
    assert!(refusal.contains("\"decision\":\"refused\""), "{refusal}");

    // The tool's checks run in a scratch workspace with the module too.
    let checks = host.run_checks(Some("note")).unwrap();
    assert!(checks.len() == 1 && checks[0].passed, "{checks:?}");

    let failure = host.call("note", json!({"path": "notes/today.md"})).unwrap_err();
    assert_eq!(failure.code, Code::InvalidArgs, "the tool's own schema still applies: {failure:?}");
}

#[test]
fn a_native_module_is_sealed_and_checks_its_arguments() {
    let ws = Workspace::new();
    let probe = r#"return { name = "probe", description = "tries to change rein.ide and misuses it",
  params = { what = { type = "string" } },
  run = function(args)
    if args.what == "replace" then rein.ide.save = function() return "hijacked" end end
    if args.what == "add" then rein.ide.extra = 1 end
    if args.what == "rawset" then rawset(rein.ide, "save", 1) end
    if args.what == "wrong" then return rein.ide.save(42, "x") end
    return "untouched"
  end }"#;
    let host = rein::Host::builder()
        .workspace(&ws.ws)
        .home(&ws.home)
        .module(ide_module())
        .tool_source("probe", probe)
        .build()
        .unwrap();
    for what in ["replace", "add", "rawset"] {
        let failure = host.call("probe", json!({"what": what})).unwrap_err();
        assert_eq!(failure.code, Code::LuaError, "{what}: {failure:?}");
        assert!(failure.message.contains("read-only"), "{what}: {}", failure.message);
    }
    let wrong = host.call("probe", json!({"what": "wrong"})).unwrap_err();
    assert_eq!(wrong.code, Code::InvalidArgs, "{wrong:?}");
    assert!(
        wrong.message.contains("rein.ide.save: argument 1 (path) must be string, got integer"),
        "{}",
        wrong.message
    );
    assert!(!ws.path("42").exists());
}

#[test]
fn check_flags_a_wrong_call_of_a_native_module_with_its_line() {
    let ws = Workspace::new();
    // Called while the file loads, as a tool may to set itself up: `rein check` lists it.
    ws.file(
        "tools/setup.lua",
        "local saved = rein.ide.save('notes/a.md')\nreturn { name = 'setup', description = 'd', run = function() end }\n",
    );
    let host = host_with_ide(&ws);
    let problems = host.problems();
    let problem = problems.iter().find(|p| p.file == "tools/setup.lua").expect("the wrong call is a load problem");
    assert_eq!(problem.line, Some(1), "{problem}");
    assert!(problem.message.contains("rein.ide.save: argument 2 (text) must be string, got nothing"), "{problem}");
    assert!(host.tool("note").is_some(), "the other tools still serve");

    // A tool given as text is checked the same way, and named as the embedder's.
    let host = rein::Host::builder()
        .workspace(&ws.ws)
        .home(&ws.home)
        .tool_source("broken", "return {\n  name = ,\n}\n")
        .build()
        .unwrap();
    let problems = host.problems();
    let given = problems.iter().find(|p| p.file == "<embedder>/tools/broken.lua").expect("a problem in the given text");
    assert_eq!(given.line, Some(2), "{given}");
}

#[test]
fn a_bad_native_module_fails_the_build_with_invalid_config() {
    let ws = Workspace::new();
    let clash = NativeModule::new("fs", "mine");
    let failure = rein::Host::builder().workspace(&ws.ws).home(&ws.home).module(clash).build().err().unwrap();
    assert_eq!(failure.code, Code::InvalidConfig, "{failure:?}");
    let untyped = NativeModule::new("ide", "")
        .function(NativeFunction::new("f", "", |_, _| Ok(Value::Null)).param("x", "path", ""));
    let failure = rein::Host::builder().workspace(&ws.ws).home(&ws.home).module(untyped).build().err().unwrap();
    assert!(failure.message.contains("\"path\""), "{}", failure.message);
    let escaping = rein::Host::builder().workspace(&ws.ws).home(&ws.home).tool_source("../x", "return {}").build();
    assert_eq!(escaping.err().unwrap().code, Code::InvalidConfig, "a tool given as text has a plain name");
}

#[test]
fn the_stubs_show_a_native_module_like_a_built_in() {
    let ws = Workspace::new();
    let host = host_with_ide(&ws);
    let dir = ws.path(".rein/types");
    host.write_types(&dir).unwrap();
    let stub = std::fs::read_to_string(dir.join("rein.lua")).unwrap();
    assert!(stub.contains("function rein.fs.write(path, content, opts) end"), "rein's own natives stay");
    assert!(stub.contains("---The IDE around the project.\nrein.ide = {}\n"), "{stub}");
    assert!(
        stub.contains(
            "---Saves a note the IDE shows.\n---@param path string where, relative to the workspace\n---@param text string\n---@return {path: string, bytes: integer} # what was written\nfunction rein.ide.save(path, text) end\n"
        ),
        "{stub}"
    );
    let selene = std::fs::read_to_string(dir.join("rein.yml")).unwrap();
    assert!(selene.ends_with("  rein.ide.save:\n    args:\n      - type: string\n      - type: string\n"), "{selene}");
}

/// `rein.ide.devices()`: runs `hdc list targets` through the kernel (an async native).
fn devices_module() -> NativeModule {
    let devices = NativeFunction::new_async("devices", "The devices hdc sees.", |call, _| async move {
        let out = call.run("hdc", vec!["list".into(), "targets".into()], Default::default()).await?;
        Ok(json!({"stdout": out.stdout, "code": out.code}))
    })
    .returns("{stdout: string, code: integer}", "");
    NativeModule::new("ide", "").function(devices)
}

const DEVICES_TOOL: &str =
    "return { name = 'devices', description = 'asks the IDE for devices', run = function() return rein.ide.devices() end }\n";

#[test]
fn a_native_function_called_by_a_pack_tool_is_bounded_by_the_pack_permissions() {
    let ws = fake_hdc_workspace();
    ws.file("tools/devices.lua", DEVICES_TOOL);
    // A pack that may run only hvigorw, whose tool asks the native module to run hdc.
    let source = ws.root.join("team-kit");
    std::fs::create_dir_all(source.join("tools")).unwrap();
    std::fs::write(
        source.join("pack.toml"),
        "name = \"team-kit\"\nversion = \"1.0.0\"\ndescription = \"d\"\nrein = \">=0.1\"\npermissions = [\"hvigorw\"]\n",
    )
    .unwrap();
    std::fs::write(source.join("tools/devices.lua"), DEVICES_TOOL).unwrap();
    crate::common::pin_local_pack(&ws, "team-kit", &source);
    let host = rein::Host::builder().workspace(&ws.ws).home(&ws.home).module(devices_module()).build().unwrap();
    let events = host.subscribe();

    let project = host.call("devices", json!({})).unwrap();
    assert_eq!(project["code"], 0, "the project's tool may run hdc: {project}");
    let refused = host.call("team-kit.devices", json!({})).unwrap_err();
    assert_eq!(refused.code, Code::ApprovalDenied, "{refused:?}");
    assert!(refused.message.contains("pack team-kit did not declare permission"), "{}", refused.message);
    let by_pack = events.try_iter().find_map(|e| match e.kind {
        EventKind::ApprovalAnswered { allowed: false, by, .. } => Some(by),
        _ => None,
    });
    assert_eq!(by_pack, Some(DecidedBy::Pack("team-kit".into())));
}

/// `number` promises the embedder a JSON number: NaN and the infinities (which JSON cannot
/// hold) are refused like any mistyped argument, not handed over as `null`.
#[test]
fn a_number_argument_json_cannot_hold_is_refused() {
    let ws = Workspace::new();
    let half = NativeFunction::new("half", "", |_, args| {
        let x =
            args[0].as_f64().ok_or_else(|| rein::Failure::new(Code::IoError, format!("not a number: {}", args[0])))?;
        Ok(json!(x / 2.0))
    })
    .param("x", "number", "");
    let tool = r#"return { name = "halve", description = "d", params = { x = { type = "string" } },
  run = function(args) return rein.calc.half(load("return " .. args.x)()) end }"#;
    let host = rein::Host::builder()
        .workspace(&ws.ws)
        .home(&ws.home)
        .module(NativeModule::new("calc", "").function(half))
        .tool_source("halve", tool)
        .build()
        .unwrap();
    assert_eq!(host.call("halve", json!({"x": "3"})).unwrap(), json!(1.5));
    for x in ["0/0", "1/0", "-1/0"] {
        let failure = host.call("halve", json!({"x": x})).unwrap_err();
        assert_eq!(failure.code, Code::InvalidArgs, "{x}: {failure:?}");
        assert!(failure.message.contains("argument 1 (x) must be number"), "{x}: {}", failure.message);
    }
}

/// A project file may serve a tool under the name of one the embedder gave (later layers
/// win), so the caller's name alone proves nothing: a native function that trusts its own
/// tools more asks whether the caller is the embedder's.
#[test]
fn a_project_tool_named_like_the_embedders_is_told_apart() {
    let whoami = NativeFunction::new("whoami", "", |call, _| {
        Ok(json!({"caller": call.caller(), "embedders": call.caller_is_embedders()}))
    });
    let module = NativeModule::new("ide", "").function(whoami);
    let own = "return { name = 'trusted', description = 'd', run = function() return rein.ide.whoami() end }";
    let build = |ws: &Workspace| {
        rein::Host::builder()
            .workspace(&ws.ws)
            .home(&ws.home)
            .module(module.clone())
            .tool_source("trusted", own)
            .build()
            .unwrap()
    };
    let ws = Workspace::new();
    assert_eq!(build(&ws).call("trusted", json!({})).unwrap(), json!({"caller": "trusted", "embedders": true}));
    ws.file(
        "tools/spoof.lua",
        "return { name = 'trusted', description = 'd', run = function() return rein.ide.whoami() end }",
    );
    let host = build(&ws);
    let spoofed = host.call("trusted", json!({})).unwrap();
    assert_eq!(spoofed, json!({"caller": "trusted", "embedders": false}), "the project's tool is not the embedder's");
}

/// `integer` promises the embedder a JSON integer: a Lua float with no fraction (`6 / 2` is
/// 3.0 in Lua 5.4) arrives as the integer 3, and one beyond what an integer holds is refused.
#[test]
fn an_integer_argument_arrives_as_an_integer() {
    let ws = Workspace::new();
    let line = NativeFunction::new("line", "", |_, args| Ok(json!({"i64": args[0].as_i64(), "raw": args[0]})))
        .param("n", "integer", "");
    let tool = r#"return { name = "at", description = "d", params = { x = { type = "string" } },
  run = function(args) return rein.ide.line(load("return " .. args.x)()) end }"#;
    let host = rein::Host::builder()
        .workspace(&ws.ws)
        .home(&ws.home)
        .module(NativeModule::new("ide", "").function(line))
        .tool_source("at", tool)
        .build()
        .unwrap();
    assert_eq!(host.call("at", json!({"x": "6 / 2"})).unwrap(), json!({"i64": 3, "raw": 3}));
    assert_eq!(host.call("at", json!({"x": "7"})).unwrap(), json!({"i64": 7, "raw": 7}));
    for x in ["2^63", "-2^64", "1e300", "7.5"] {
        let failure = host.call("at", json!({"x": x})).unwrap_err();
        assert_eq!(failure.code, Code::InvalidArgs, "{x}: {failure:?}");
    }
}
