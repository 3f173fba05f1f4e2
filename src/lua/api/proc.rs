//! `rein.proc.run(program, args, {cwd?, timeout_ms?, stdin?, env?, on_line?})`: a toolchain
//! program through the kernel's checks. Returns {code, signal, stdout, stderr, timed_out,
//! duration_ms, truncated}; a timeout raises TIMEOUT with the output so far in its details.

use std::collections::BTreeMap;

use mlua::{Function, Lua, MultiValue, Table, Value};
use serde::Deserialize;

use crate::error::Failure;
use crate::kernel::run::RunOptions;
use crate::kernel::spawn::Stream;
use crate::lua::api::{options, outcome};
use crate::lua::{failure, runtime::host_data};

pub fn register(lua: &Lua, natives: &Table) -> mlua::Result<()> {
    natives.set("proc_run", lua.create_async_function(run)?)?;
    Ok(())
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunOpts {
    cwd: Option<String>,
    timeout_ms: Option<u64>,
    stdin: Option<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
}

async fn run(lua: Lua, (program, args, opts): (String, Vec<String>, Value)) -> mlua::Result<MultiValue> {
    let on_line: Option<Function> = match &opts {
        Value::Table(t) => t.get("on_line")?,
        _ => None,
    };
    let opts = match &opts {
        Value::Table(t) => {
            let copy = lua.create_table()?;
            for pair in t.pairs::<Value, Value>() {
                let (k, v) = pair?;
                if !matches!(&k, Value::String(s) if s.as_bytes() == b"on_line".as_slice()) {
                    copy.set(k, v)?;
                }
            }
            Value::Table(copy)
        }
        other => other.clone(),
    };
    let parsed = match options::<RunOpts>(&lua, opts, "rein.proc.run") {
        Ok(parsed) => parsed,
        Err(failure) => return outcome::<()>(&lua, Err(failure)),
    };
    let run_opts = RunOptions {
        cwd: parsed.cwd,
        timeout_ms: parsed.timeout_ms,
        stdin: parsed.stdin.map(String::into_bytes),
        env: parsed.env.into_iter().collect(),
    };
    if let Err(failure) = check_pack_permissions(&lua, &program, &args) {
        return outcome::<()>(&lua, Err(failure));
    }
    let kernel = host_data(&lua).kernel.clone();
    // A failing callback (an error, or a tripped budget) stops the program; its error is the
    // call's error.
    let mut callback_failure: Option<Failure> = None;
    let mut on_line_fn = |stream: Stream, line: &str| -> Result<(), String> {
        let Some(callback) = &on_line else { return Ok(()) };
        let name = match stream {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        };
        callback.call::<()>((line, name)).map_err(|err| {
            let failure = failure::from_mlua_error(&lua, &err);
            let message = failure.message.clone();
            callback_failure = Some(failure);
            message
        })
    };
    let result = kernel.run(&program, args, run_opts, &mut on_line_fn).await;
    let result = match (result, callback_failure) {
        (Err(_), Some(failure)) => Err(failure),
        (result, _) => result.map_err(Failure::from),
    };
    outcome(&lua, result)
}

/// A pack's tools may run only what the pack declared in `permissions` — on top of the
/// kernel's approvals, never instead of them. Every pack in the chain of calls must allow it.
fn check_pack_permissions(lua: &Lua, program: &str, args: &[String]) -> Result<(), Failure> {
    for pack in crate::lua::runtime::packs_in_call(lua) {
        let root = host_data(lua).sources.pack_root(&pack).map(std::path::Path::to_path_buf);
        let manifest = root.map(|r| crate::packs::Manifest::load(&r));
        let permitted = matches!(&manifest, Some(Ok(m)) if m.permits(program, args));
        if !permitted {
            let command = crate::kernel::redact::command_line(program, args);
            return Err(Failure::new(
                crate::error::Code::ApprovalDenied,
                format!("pack {pack} did not declare permission to run `{command}`; add it to the pack's permissions (a person reviews them at `rein pack add`)"),
            )
            .with_details(serde_json::json!({"pack": pack, "command": command})));
        }
    }
    Ok(())
}
