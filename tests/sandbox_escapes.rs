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
