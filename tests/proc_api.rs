//! `rein.proc.run` through the kernel: only known, found programs; the approval policy; a
//! cleared environment; deadlines; streaming; secrets never shown.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::common::Workspace;
use serde_json::json;

fn script(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A workspace whose home config points hdc and java at scripts, with a `run` tool that passes
/// its arguments to rein.proc.run.
fn setup(hdc_body: &str) -> Workspace {
    let ws = Workspace::new();
    let bin = ws.root.join("bin");
    script(&bin.join("hdc"), hdc_body);
    // Prints its command line, then what an argument file it was given holds (as java reads it).
    script(
        &bin.join("java"),
        "echo \"java $*\"; echo \"err $*\" >&2; for a in \"$@\"; do case $a in @*) cat \"${a#@}\";; esac; done",
    );
    std::fs::write(bin.join("hap-sign-tool.jar"), "").unwrap();
    std::fs::write(
        ws.home.join("config.toml"),
        format!(
            "[toolchain]\nhdc = \"{0}/hdc\"\njava = \"{0}/java\"\nhap_sign_tool_jar = \"{0}/hap-sign-tool.jar\"\nhvigorw = \"{0}/missing-hvigorw\"\n",
            bin.display()
        ),
    )
    .unwrap();
    ws.file(
        "tools/run.lua",
        r#"return {
  name = "run",
  description = "runs a program",
  params = {
    program = { type = "string" },
    args = { type = "array", items = { type = "string" } },
    timeout_ms = { type = "integer", optional = true },
    stop_at = { type = "string", optional = true },
  },
  run = function(a)
    local lines = {}
    local r = rein.proc.run(a.program, a.args, {
      timeout_ms = a.timeout_ms,
      on_line = function(line, stream)
        table.insert(lines, stream .. ":" .. line)
        if a.stop_at and line == a.stop_at then error("seen enough") end
      end,
    })
    r.lines = lines
    return r
  end,
}"#,
    );
    ws
}

fn call_run(ws: &Workspace, program: &str, args: &[&str]) -> (i32, serde_json::Value) {
    ws.call("run", &json!({"program": program, "args": args}))
}

#[test]
fn a_probe_runs_and_streams_its_lines() {
    let ws = setup("echo 'ABC\t\tUSB\tConnected\tphone\thdc'; echo 'warn' >&2");
    let (status, out) = call_run(&ws, "hdc", &["list", "targets", "-v"]);
    assert_eq!(status, 0, "{out}");
    let r = &out["result"];
    assert_eq!(r["code"], json!(0));
    assert_eq!(r["stdout"], json!("ABC\t\tUSB\tConnected\tphone\thdc\n"));
    assert_eq!(r["stderr"], json!("warn\n"));
    assert_eq!(r["timed_out"], json!(false));
    assert!(r["lines"].as_array().unwrap().contains(&json!("stdout:ABC\t\tUSB\tConnected\tphone\thdc")));
}

#[test]
fn the_policy_and_the_toolchain_gate_every_program() {
    let ws = setup("echo hi");
    let (_, out) = call_run(&ws, "hdc", &["install", "-r", "x.hap"]);
    assert_eq!(out["error"]["code"], json!("APPROVAL_REQUIRED"), "{out}");
    let (_, out) = call_run(&ws, "hdc", &["shell", "reboot"]);
    assert_eq!(out["error"]["code"], json!("APPROVAL_DENIED"));
    let (_, out) = call_run(&ws, "bash", &["-c", "id"]);
    assert_eq!(out["error"]["code"], json!("PROGRAM_NOT_ALLOWED"));
    let (_, out) = call_run(&ws, "hvigorw", &["assembleHap"]);
    assert_eq!(out["error"]["code"], json!("TOOLCHAIN_NOT_FOUND"));
    assert!(out["error"]["message"].as_str().unwrap().contains("config.toml"));
}

#[test]
fn the_environment_is_cleared_and_secrets_never_pass() {
    let ws = setup("env");
    let mut cmd = ws.command(&["call", "run", r#"{"program":"hdc","args":["shell","hilog","-x"]}"#]);
    cmd.env("OHOS_DEVICE_TOKEN", "tok-123").env("MY_SECRET", "s-456").env("LANG", "C.UTF-8").env("RANDOM_VAR", "x");
    let (status, out) = crate::common::run_json(&mut cmd, None);
    assert_eq!(status, 0, "{out}");
    let stdout = out["result"]["stdout"].as_str().unwrap();
    assert!(stdout.contains("LANG=C.UTF-8"));
    for hidden in ["tok-123", "s-456", "RANDOM_VAR"] {
        assert!(!stdout.contains(hidden), "{hidden} leaked: {stdout}");
    }
}

#[test]
fn a_timeout_raises_with_the_output_so_far() {
    let ws = setup("echo started; sleep 1000");
    let (status, out) = ws.call("run", &json!({"program": "hdc", "args": ["shell", "hilog", "-x"], "timeout_ms": 300}));
    assert_eq!(status, 1);
    assert_eq!(out["error"]["code"], json!("TIMEOUT"));
    assert_eq!(out["error"]["details"]["output"]["stdout"], json!("started\n"));
    assert_eq!(out["error"]["details"]["output"]["timed_out"], json!(true));
    let (_, out) =
        ws.call("run", &json!({"program": "hdc", "args": ["shell", "hilog", "-x"], "timeout_ms": 10_000_000}));
    assert_eq!(out["error"]["code"], json!("INVALID_ARGS"));
}

#[test]
fn a_failing_line_callback_stops_the_program_with_its_error() {
    let ws = setup("echo one; echo two; sleep 1000");
    let (status, out) = ws.call("run", &json!({"program": "hdc", "args": ["shell", "hilog", "-x"], "stop_at": "two"}));
    assert_eq!(status, 1);
    assert_eq!(out["error"]["code"], json!("LUA_ERROR"));
    assert!(out["error"]["message"].as_str().unwrap().contains("seen enough"));
}

#[test]
fn signing_passwords_never_appear_in_output_or_errors() {
    let ws = setup("echo hi");
    ws.file("a.hap", "x");
    let args = [
        "sign-app",
        "-keyAlias",
        "k",
        "-inFile",
        "a.hap",
        "-outFile",
        "b.hap",
        "-keyPwd",
        "hunter22",
        "-keystorePwd",
        "pw-0042",
    ];
    let (status, out) = call_run(&ws, "hap-sign-tool", &args);
    assert_eq!(status, 0, "{out}");
    let text = out.to_string();
    let stdout = out["result"]["stdout"].as_str().unwrap();
    assert!(stdout.starts_with("java @"), "java's command line is only its argument file: {text}");
    assert!(stdout.contains("\"-jar\""), "which holds -jar and the rest: {text}");
    assert!(!text.contains("hunter22") && !text.contains("pw-0042"), "{text}");
    let outside = ["sign-app", "-inFile", "/etc/passwd", "-keyPwd", "hunter22"];
    let (_, out) = call_run(&ws, "hap-sign-tool", &outside);
    assert_eq!(out["error"]["code"], json!("APPROVAL_REQUIRED"));
    assert!(!out.to_string().contains("hunter22"), "{out}");
}
