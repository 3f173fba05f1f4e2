//! Scripts cannot reach the OS except through `rein.*`: every standard way out is closed,
//! and each attempt fails with a clear error.

use rein::Host;
use serde_json::{json, Value};

fn host_with(tools: &[(&str, &str)]) -> (tempfile::TempDir, Host) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("ws/tools")).unwrap();
    for (name, body) in tools {
        let src =
            format!("return {{ name = {name:?}, description = \"probe\", run = function(args, ctx)\n{body}\nend }}\n");
        std::fs::write(dir.path().join(format!("ws/tools/{name}.lua")), src).unwrap();
    }
    let host = Host::builder().workspace(dir.path().join("ws")).home(dir.path().join("home")).build().unwrap();
    assert!(host.problems().is_empty(), "{:?}", host.problems());
    (dir, host)
}

#[test]
fn dangerous_globals_are_absent() {
    let (_d, host) = host_with(&[(
        "globals",
        "return { io = type(io), os = type(os), package = type(package), debug = type(debug),\n\
         dofile = type(dofile), loadfile = type(loadfile), dump = type(string.dump),\n\
         require = type(require), load = type(load) }",
    )]);
    let seen = host.call("globals", json!({})).unwrap();
    assert_eq!(
        seen,
        json!({"io": "nil", "os": "nil", "package": "nil", "debug": "nil", "dofile": "nil",
               "loadfile": "nil", "dump": "nil", "require": "function", "load": "function"})
    );
}

fn refused(host: &Host, tool: &str, needle: &str) {
    let err = host.call(tool, json!({})).expect_err("the attempt must fail");
    assert_eq!(err.code.as_str(), "LUA_ERROR", "{tool}: {err}");
    assert!(err.message.contains(needle), "{tool}: expected {needle:?} in {:?}", err.message);
}

#[test]
fn each_escape_attempt_fails_clearly() {
    let (_d, host) = host_with(&[
        ("use_io", "return io.open('/etc/passwd')"),
        ("use_os", "return os.execute('true')"),
        ("require_os", "return require('os')"),
        ("require_io", "return require('io')"),
        ("require_path", "return require('../../etc/passwd')"),
        ("loadlib", "return package.loadlib('libc.so.6', 'system')"),
        ("use_debug", "return debug.getregistry()"),
        ("binary_chunk", "local f, err = load('\\27Lua\\84\\0', 'x')\nif not f then error(err) end\nreturn {}"),
        ("binary_mode", "return load('return 1', 'x', 'b')"),
        ("use_dofile", "return dofile('/etc/passwd')"),
        ("use_loadfile", "return loadfile('/etc/passwd')"),
        ("stop_gc", "return collectgarbage('stop')"),
    ]);
    refused(&host, "use_io", "io");
    refused(&host, "use_os", "os");
    refused(&host, "require_os", "module \"os\" not found");
    refused(&host, "require_io", "module \"io\" not found");
    refused(&host, "require_path", "is not valid");
    refused(&host, "loadlib", "package");
    refused(&host, "use_debug", "debug");
    refused(&host, "binary_chunk", "binary chunk");
    refused(&host, "binary_mode", "text chunks only");
    refused(&host, "use_dofile", "dofile");
    refused(&host, "use_loadfile", "loadfile");
    refused(&host, "stop_gc", "not available to scripts");
}

#[test]
fn load_of_text_still_works_inside_the_sandbox() {
    let (_d, host) =
        host_with(&[("calc", "local f = load('return 6 * 7')\nreturn { v = f(), io = load('return io')() == nil }")]);
    assert_eq!(host.call("calc", json!({})).unwrap(), json!({"v": 42, "io": true}));
}

#[test]
fn print_goes_to_the_log_not_stdout() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("ws/tools")).unwrap();
    std::fs::write(
        dir.path().join("ws/tools/chatty.lua"),
        "return { name = 'chatty', description = 'prints', run = function() print('hello from lua'); rein.log.warn('careful', {n = 1}); return { done = true } end }",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rein"))
        .args(["--json", "call", "chatty"])
        .arg("--workspace")
        .arg(dir.path().join("ws"))
        .arg("--home")
        .arg(dir.path().join("home"))
        .env("REIN_LOG", "info")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let parsed: Value = serde_json::from_str(stdout.trim()).expect("stdout is exactly one JSON object");
    assert_eq!(parsed, json!({"ok": true, "result": {"done": true}}));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("hello from lua") && stderr.contains("careful"), "{stderr}");
}

#[test]
fn globals_of_one_tool_file_do_not_leak_into_another() {
    let (_d, host) = host_with(&[("setter", "leaked = 1\nreturn {}"), ("getter", "return { seen = leaked ~= nil }")]);
    host.call("setter", json!({})).unwrap();
    assert_eq!(host.call("getter", json!({})).unwrap(), json!({"seen": false}));
}

/// After each poisoning attempt, the built-ins still work in the same host.
fn built_ins_still_work(host: &Host, dir: &std::path::Path, after: &str) {
    std::fs::write(dir.join("ws/probe.txt"), "one\ntwo\n").unwrap();
    let read = host.call("read_file", json!({"path": "probe.txt"})).unwrap_or_else(|e| panic!("after {after}: {e}"));
    assert_eq!(read["total_lines"], json!(2), "after {after}: {read}");
    let info = host.call("project_info", json!({}));
    assert!(info.is_ok() || info.as_ref().unwrap_err().code.as_str() != "LUA_ERROR", "after {after}: {info:?}");
}

#[test]
fn no_script_can_poison_the_namespace_the_string_methods_or_another_file() {
    let (dir, host) = host_with(&[
        ("rawset_rein", "rawset(rein, 'fs', nil)\nreturn {}"),
        ("assign_rein", "rein.fs.read_text = function() return 'evil' end\nreturn {}"),
        ("replace_rein", "rein = nil\nstring = nil\nreturn { rein = type(rein) }"),
        ("global_g", "_G.rein = nil\nreturn {}"),
        ("rawset_g", "rawset(_G, 'rein', nil)\nreturn {}"),
        ("string_index", "getmetatable('').__index = nil\nreturn {}"),
        ("string_mt", "setmetatable(string, nil)\nreturn {}"),
        ("string_fn", "string.find = nil\nreturn {}"),
        ("table_fn", "table.insert = nil\nreturn {}"),
        ("loaded_chunk", "load('rein = nil; string.format = nil')()\nreturn {}"),
        ("pairs_state", "local _, state = pairs(rein)\nstate.fs = nil\nreturn {}"),
        ("still_methods", "return { upper = ('abc'):upper(), n = #rein.json.encode({1, 2}) }"),
        ("walk", "local names = {}\nfor name in pairs(rein.fs) do names[#names + 1] = name end\nreturn { n = #names }"),
    ]);
    for (tool, needle) in [
        ("rawset_rein", "read-only"),
        ("assign_rein", "read-only"),
        ("global_g", "read-only"),
        ("rawset_g", "read-only"),
        ("string_index", "attempt to index"),
        ("string_mt", "protected metatable"),
        ("string_fn", "read-only"),
        ("table_fn", "read-only"),
        ("loaded_chunk", "read-only"),
        ("pairs_state", "read-only"),
    ] {
        refused(&host, tool, needle);
        built_ins_still_work(&host, dir.path(), tool);
    }
    // Assigning a global only changes that file's own environment (nil there uncovers the
    // shared namespace again).
    assert_eq!(host.call("replace_rein", json!({})).unwrap(), json!({"rein": "table"}));
    built_ins_still_work(&host, dir.path(), "replace_rein");
    assert_eq!(host.call("still_methods", json!({})).unwrap(), json!({"upper": "ABC", "n": 5}));
    assert!(host.call("walk", json!({})).unwrap()["n"].as_u64().unwrap() > 3, "pairs sees the namespace");
}

#[test]
fn a_module_changed_by_one_file_is_unchanged_for_another_and_a_pack_like_module_cannot_patch_rein() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(ws.join("tools")).unwrap();
    std::fs::create_dir_all(ws.join("prelude/team")).unwrap();
    std::fs::write(ws.join("prelude/team/util.lua"), "return { greet = function() return 'hello' end }\n").unwrap();
    std::fs::write(
        ws.join("prelude/team/patch.lua"),
        "local ok, err = pcall(function() rein.fs.read_text = function() return 'evil' end end)\nreturn { ok = ok, err = tostring(err) }\n",
    )
    .unwrap();
    std::fs::write(
        ws.join("tools/breaker.lua"),
        "local util = require('team.util')\nutil.greet = function() return 'broken' end\n\
         local patch = require('team.patch')\n\
         return { name = 'breaker', description = 'x', run = function() return { greet = util.greet(), patched = patch.ok, err = patch.err } end }\n",
    )
    .unwrap();
    std::fs::write(
        ws.join("tools/user.lua"),
        "local util = require('team.util')\nreturn { name = 'user', description = 'x', run = function() return { greet = util.greet() } end }\n",
    )
    .unwrap();
    let host = Host::builder().workspace(&ws).home(dir.path().join("home")).build().unwrap();
    assert!(host.problems().is_empty(), "{:?}", host.problems());
    let breaker = host.call("breaker", json!({})).unwrap();
    assert_eq!(breaker["greet"], json!("broken"), "its own copy changed: {breaker}");
    assert_eq!(breaker["patched"], json!(false), "{breaker}");
    assert!(breaker["err"].as_str().unwrap().contains("read-only"), "{breaker}");
    assert_eq!(host.call("user", json!({})).unwrap(), json!({"greet": "hello"}), "another file's copy is untouched");
    built_ins_still_work(&host, dir.path(), "the module patch");
}
